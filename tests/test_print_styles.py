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

#: styles the reader does not read right yet, and why (docs/BENCHMARKS.md, session 19 styles19)
KNOWN_GAPS = {
    "hours_eta_tail": "columns printed without names: nothing says which number is the loss",
    "fastai": "fastai's metric columns after valid_loss are validation metrics; read as training accuracy",
    "val_block_lines": "a validation block ('Validation @ N', then one indented metric a line) reads as training",
}
STYLES = [s for s in ps.STYLES if s not in KNOWN_GAPS]
HISTORIES = {h().name: h() for h in (ps.healthy_epochs, ps.nan_steps)}


def test_many_styles():
    assert len(ps.STYLES) >= 40


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
