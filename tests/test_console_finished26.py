"""Console prints of finished runs that session 26 taught the reader: a progress bar that counts epochs,
a split's loss named by its kind (``val_margin_loss``), a LaTeX tabular, a table header printed on two
lines; and a validation loss that drifts up *with* the training loss, which opens no gap (not overfitting)."""
import json
import math

import pytest

from traindx.engine.frontends.gather import read_pasted
from traindx.probes.readers.console import read_console_text


def _curve(e, start=1.2, floor=0.15, tau=3.0):
    return floor + (start - floor) * math.exp(-e / tau)


def _facts(text: str) -> dict:
    return {f.fact: f.value for f in read_pasted(text).findings}


def test_a_bar_over_the_epochs_and_the_epoch_lines_after_it_are_one_curve():
    # a trange(..., unit="epoch") bar redrawn with \r, then the same history printed per epoch
    bar = "".join(f"Fitting epochs: {100 * e // 10:3d}%|##  | {e}/10 "
                  f"[00:0{e}<00:05, 0.31s/epoch, loss={_curve(e):.3f}]\r" for e in range(1, 11)) + "\n"
    table = "".join(f"epoch={e} loss={_curve(e):.6f}\n" for e in range(1, 11))
    log = read_console_text(bar + table)
    xs = [p.x for p in log.series["loss"].points]
    assert len(xs) == 10 and xs[-1] == 10.0
    assert _facts(bar + table).get("loss_spikes") == 0


def test_a_bar_described_as_epochs_counts_epochs_not_its_percentage():
    text = "".join(f"Epochs: {100 * e // 8:3d}%|###   | {e}/8 [00:01<00:03, 2.1it/s, train_loss={_curve(e):.4f}]\n"
                   for e in range(1, 9))
    log = read_console_text(text)
    assert log.x_label == "epoch"
    assert [p.x for p in log.series["loss"].points] == [float(e) for e in range(1, 9)]


@pytest.mark.parametrize("train, val", [("loss", "val_hinge_loss"), ("loss", "validation.nll_loss"),
                                        ("train_bpr_loss", "valid_bpr_loss"), ("loss", "dev_kl_loss")])
def test_a_split_s_loss_named_by_its_kind_is_that_split_s_loss(train, val):
    text = "".join(f"epoch={e} {train}={_curve(e):.5f} {val}={_curve(e) + 0.07:.5f}\n" for e in range(1, 8))
    log = read_console_text(text)
    assert log.columns["val_loss"] == val
    assert log.series["val_loss"].points[-1].mean == pytest.approx(_curve(7) + 0.07, abs=1e-4)


def test_a_plain_validation_loss_still_wins_over_a_kind_of_it():
    text = "".join(f"epoch={e} loss={_curve(e):.4f} val_loss={_curve(e) + 0.1:.4f} val_aux_loss=0.5\n"
                   for e in range(1, 8))
    assert read_console_text(text).columns["val_loss"] == "val_loss"


def test_a_latex_tabular_is_a_table():
    text = ("\\begin{tabular}{rrrr}\n\\toprule\nEpoch & Train loss & Val loss & LR \\\\\n\\midrule\n"
            + "".join(f"{e} & {_curve(e):.4f} & {_curve(e) + 0.02:.4f} & 1.0e-03 \\\\\n" for e in range(1, 9))
            + "\\bottomrule\n\\end{tabular}\n")
    log = read_console_text(text)
    assert set(log.series) >= {"loss", "val_loss"}
    assert [p.x for p in log.series["val_loss"].points][-1] == 8.0


def test_a_header_on_two_lines_names_each_column_by_both():
    head = ("| Epoch | Step | Train | Valid   | Train | Valid   |\n"
            "|       |      | MAE   | MAE     | Loss  | Loss    |\n")
    rows = "".join(f"| {e} | {10 * e} | {_curve(e) * 2:.4f} | {_curve(e) * 2 + 0.1:.4f} | {_curve(e):.4f} | "
                   f"{_curve(e) + 0.05:.4f} |\n" for e in range(1, 9))
    log = read_console_text(head + rows)
    assert log.columns["loss"] == "Train Loss" and log.columns["val_loss"] == "Valid Loss"
    assert len(log.series["val_loss"].points) == 8


def test_a_rule_under_a_header_does_not_join_its_names():
    text = ("epoch  train_loss  val_loss\n-----  ----------  --------\n"
            + "".join(f"{e}  {_curve(e):.4f}  {_curve(e) + 0.05:.4f}\n" for e in range(1, 8)))
    assert read_console_text(text).columns["loss"] == "train_loss"


def _drift(shared: bool) -> str:
    lines = []
    for e in range(1, 21):
        t = 0.3 * math.exp(-e / 1.5) + 0.004
        v = 0.2 * math.exp(-e / 1.5) + 0.004
        if e > 12:   # both drift up at the floor, or validation alone while training keeps its low
            v += 0.0003 * (e - 12)
            t += 0.0003 * (e - 12) if shared else -0.00005 * (e - 12)
        lines.append(f"epoch {e} train_loss {t:.5f} val_loss {v:.5f}")
    return "\n".join(lines) + "\n"


def test_a_validation_rise_the_training_loss_shares_is_flagged_and_a_lone_one_is_not():
    shared, lone = _facts(_drift(True)), _facts(_drift(False))
    assert shared["val_loss_trend"] == "increasing" and shared.get("val_rise_shared") is True
    assert lone["val_loss_trend"] == "increasing" and "val_rise_shared" not in lone


def test_diagnose_does_not_call_a_shared_drift_at_the_floor_overfitting(tmp_path):
    from conftest import run_cli
    for shared, want in ((True, False), (False, True)):
        p = tmp_path / f"run_{shared}.log"
        p.write_text(_drift(shared), encoding="utf-8")
        r = run_cli("diagnose", "--log", str(p), "--non-interactive", "--format", "json")
        assert r.returncode == 0, r.stderr
        sym = (json.loads(r.stdout).get("symptom") or {}).get("id")
        assert (sym == "overfitting") is want, (shared, sym)
