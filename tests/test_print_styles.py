"""The console reader reads the same metric histories printed in many styles (benchmarks/print_styles.py):
each style's log is read as ``traindx diagnose --log`` reads it, and the metrics it printed come back
with their split and their values (a NaN run's non-finite losses included)."""

import importlib.util
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("print_styles", os.path.join(ROOT, "benchmarks", "print_styles.py"))
ps = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("print_styles", ps)   # its dataclasses look their module up
_spec.loader.exec_module(ps)

#: styles the reader does not read right yet, and why (docs/BENCHMARKS.md, session 19 styles19 and session 20
#: styles20); session 19's val_block_lines reads since styles20
KNOWN_GAPS = {
    "hours_eta_tail": "columns printed without names: nothing says which number is the loss",
    "hours_eta_unnamed": "columns printed without names (a 'hours  eta' tail)",
    "unnamed_after_epoch": "bare numbers after an epoch counter: nothing names them",
    "fastai": "fastai's metric columns after valid_loss are validation metrics; read as training accuracy",
    "fastai_error_rate": "a whitespace table with empty cells (an epoch table printed per step) loses its rows",
    "paddle_hapi": "the evaluation's progress line has its own step counter, which ends the 'Eval begin...' block",
    "catalyst": "accuracy01 (top-1 accuracy) is no known accuracy name",
    "flax_clu": "train/learning_rate: a split word before a learning-rate name is not read as the lr",
    "haiku_slash": "'Train / Test accuracy: a / b': two values after one name",
    "yolov8_cls": "top1_acc under a 'classes' header row of the validation table",
    "gluon_bare_splits": "train=/val= name no metric: no accuracy is guessed (no validation loss either)",
    "pyg_bare_splits": "Train:/Val:/Test: name no metric: no accuracy is guessed (no validation loss either)",
    "accelerate_eval_dict": "an evaluation's dict printed without an eval word reads as training accuracy",
    "ignite_results": "'Training Results ... Avg loss' per evaluation beside the per-iteration Loss (NaN run)",
}
STYLES = [s for s in ps.STYLES if s not in KNOWN_GAPS]
HISTORIES = {h().name: h() for h in (ps.healthy_epochs, ps.nan_steps)}


def test_many_styles():
    assert len(ps.STYLES) >= 95


@pytest.mark.parametrize("history", sorted(HISTORIES))
@pytest.mark.parametrize("style", STYLES)
def test_style_reads_its_metrics(style, history, tmp_path):
    text, truth = ps.render(HISTORIES[history], style)
    path = tmp_path / f"{style}.log"
    path.write_text(text, encoding="utf-8")
    res = ps.check_read(str(path), truth)
    assert res["read"], res["error"]
    assert not res["missing"], f"roles not found: {res['missing']} (found {res['found']})"
    assert res["roles_ok"] and res["values_ok"], res["wrong"]


def test_localized_labels_and_colours_read(tmp_path):
    """One line each, as a user would paste it: the labels say which metric and split it is."""
    from traindx.probes.readers.console import read_console_text
    lines = [f"\x1b[1m第 {e} 轮\x1b[0m | 训练损失: {2.0 / e:.4f} | 验证损失: {2.2 / e:.4f} | 验证精度: {50 + e}.00%"
             for e in range(1, 9)]
    log = read_console_text("\n".join(lines))
    assert log.x_label == "epoch"
    assert log.series["loss"].last_value == pytest.approx(0.25)
    assert log.series["val_loss"].last_value == pytest.approx(0.275)
    assert log.series["val_accuracy"].last_value == pytest.approx(0.58)
    log = read_console_text("\n".join(f"Epoche {e}/8 - Verlust: {1.0 / e:.4f} - Val-Genauigkeit: 0.{e}"
                                      for e in range(1, 9)))
    assert log.series["loss"].last_value == pytest.approx(0.125)
    assert log.series["val_accuracy"].last_value == pytest.approx(0.8)
