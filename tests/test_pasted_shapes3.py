"""More console excerpts in the shapes people paste into threads (session 8): each sample is
written for this test — synthetic numbers in the print shapes of common tools — and asserts what
a user would see: the metric read, or the symptom named.

Shapes: a plural metric name with a spaced colon (``losses : 2.4``), a loss printed under a second
name that turns NaN while the progress bar's loss stays finite, a perplexity too large for any
vocabulary, a table row whose header the excerpt left out turning NaN, an exception line behind a
logger's time stamp and level, and one progress-bar redraw above per-epoch summary lines.
Torch-free; through the command line as a user runs it.
"""
import json

import pytest

from click.testing import CliRunner

from traindx.engine.frontends.cli import main
from traindx.probes.readers.console import read_console_text
from conftest import report_symptom


_symptom = report_symptom


def _diagnose(tmp_path, text, name="run.out"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["diagnose", "--log", str(p), "--non-interactive", "--format", "json"])
    assert res.exit_code == 0, res.output
    out = res.output
    rep = json.loads(out[out.index("{"):])
    return rep, out


def _vals(log, role):
    return [p.mean for p in log[role].points]


# ------------------------------------------------------------------------------- reading
def test_a_plural_loss_name_with_a_spaced_colon_is_the_loss(tmp_path):
    vals = [5.12, 4.87, 9.6, 140.2, 2.3e4, "nan", "nan", "nan"]
    text = "\n".join(f"step : {i} | losses : {v}" for i, v in enumerate(vals, start=1))
    log = read_console_text(text)
    assert log.columns["loss"] == "losses"
    assert log["loss"].nonfinite == 3
    rep, _ = _diagnose(tmp_path, text)
    assert _symptom(rep) == "explosion"


def test_a_loss_under_a_second_name_turning_nan_is_an_explosion(tmp_path):
    lines = []
    for e, (bar, mean) in enumerate([(8.1e3, 7.7e3), (2.2e4, "nan"), (6.5e4, "nan")], start=3):
        lines += [f"Epoch {e}: 100%|##########| 120/120 [00:31<00:00,  3.9it/s, loss={bar:.3g}]",
                  "epoch took 31.2 seconds",
                  f"Epoch mean loss : {mean}"]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "explosion"
    assert "Epoch mean loss is NaN/Inf in 2 record(s)" in out


def test_a_perplexity_beyond_any_vocabulary_is_an_overflowed_loss(tmp_path):
    text = "\n".join([
        "iter 100 | acc 0.00 | ppl 4.4e+31 | 2051 tok/s",
        "iter 200 | acc 0.00 | ppl 9.1e+36 | 2049 tok/s",
    ])
    log = read_console_text(text)
    assert log["loss"].nonfinite == 2
    assert any("beyond any vocabulary" in n for n in log.notes)
    rep, _ = _diagnose(tmp_path, text)
    assert _symptom(rep) == "explosion"
    # an ordinary early perplexity stays a finite loss
    ok = read_console_text("iter 100 | ppl 2814.5\niter 200 | ppl 1702.3\niter 300 | ppl 950.8")
    assert ok["loss"].nonfinite == 0


def test_a_headerless_table_row_turning_nan_is_an_explosion(tmp_path):
    rows = ["   21/300     5.1G   0.04812   0.02113  0.009120        31       640",
            "   21/300     5.1G   0.04807   0.02109  0.009087        25       640",
            "   21/300     5.1G       nan       nan       nan        27       640"]
    rep, out = _diagnose(tmp_path, "\n".join(rows))
    assert _symptom(rep) == "explosion"
    # the same rows without a NaN cell hold no metric to read: refused in one line (exit 2)
    p = tmp_path / "finite.out"
    p.write_text("\n".join(rows[:2]), encoding="utf-8")
    res = CliRunner().invoke(main, ["diagnose", "--log", str(p), "--non-interactive"])
    assert res.exit_code == 2


def test_an_exception_behind_a_logger_stamp_and_level_is_a_crash(tmp_path):
    text = "\n".join([
        "2025-01-07 09:12:44 [INFO] epoch 2 iter 40 loss 1.873",
        '2025-01-07 09:12:45 [ERROR]   File "train.py", line 88, in run_eval',
        "2025-01-07 09:12:45 [ERROR]     out = net(x)",
        "2025-01-07 09:12:45 [ERROR] RuntimeError: CUDA error: device-side assert triggered",
    ])
    rep, out = _diagnose(tmp_path, text)
    assert rep["status"] == "out_of_scope"
    assert "device-side assert" in out


def test_one_progress_bar_redraw_above_epoch_summaries_leaves_the_curve_to_the_summaries(tmp_path):
    lines = ["Epoch 9: 97%",
             "4100/4230 [20:11<00:38, 3.38it/s, loss=0.0311, v_num=3]", ""]
    for e, (tr, va) in enumerate([(0.412, 0.305), (0.288, 0.262), (0.231, 0.241), (0.190, 0.229),
                                  (0.158, 0.220)]):
        lines.append(f"Epoch : {e} | Train loss :  {tr} | Validation loss :  {va}")
    log = read_console_text("\n".join(lines))
    assert log.columns["loss"] == "Train loss"
    assert _vals(log, "loss")[0] == 0.412
    xs = [p.x for p in log["loss"].points]
    assert xs == sorted(xs) and xs[0] >= 0
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "healthy"


def test_an_mm_style_val_line_with_a_top1_name_is_the_validation_accuracy():
    text = "\n".join(f"2024-02-0{d} 10:00:00,000 - cls - INFO - Epoch(val) [{e}][5]\t"
                     f"accuracy_top-1: {a}, accuracy_top-5: {b}"
                     for d, (e, a, b) in enumerate([(7, 41.25, 88.5), (8, 44.0, 90.25), (9, 47.75, 91.0)], 1))
    log = read_console_text(text)
    assert log.columns["val_accuracy"] == "accuracy_top-1"
    assert _vals(log, "val_accuracy") == pytest.approx([0.4125, 0.44, 0.4775])


# ------------------------------------------------------------------------------- symptoms
def test_a_validation_accuracy_repeating_one_value_while_training_moves_is_not_learning(tmp_path):
    lines = ["Train on 900 samples, validate on 300 samples"]
    for e, (loss, acc) in enumerate([(0.93, 0.55), (0.88, 0.58), (0.81, 0.61), (0.77, 0.63), (0.74, 0.65),
                                     (0.71, 0.66)], start=1):
        lines += [f"Epoch {e}/6",
                  f" - 4s - loss: {loss:.4f} - acc: {acc:.4f} - val_loss: {0.8 - e / 100:.4f} - val_acc: 0.6633"]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "not_learning"
    assert "same answers on held-out data" in out
    # the same log with a validation accuracy that moves in its last digits learns
    moving = "\n".join(line.replace("val_acc: 0.6633", f"val_acc: 0.66{30 + i}") for i, line in enumerate(lines))
    rep2, _ = _diagnose(tmp_path, moving, name="moving.out")
    assert _symptom(rep2) != "not_learning"


def test_a_validation_loss_thrown_back_and_forth_beside_a_smooth_training_loss_is_instability(tmp_path):
    vals = [3.1, 9.8, 4.2, 12.6, 5.0, 15.3]
    lines = []
    for e, v in enumerate(vals, start=30):
        lines += [f"Epoch {e}/60",
                  f"500/500 [==============================] - 12s 24ms/step - loss: {0.2 - e / 1000:.4f} - "
                  f"accuracy: 0.9{e % 10}1 - val_loss: {v:.4f} - val_accuracy: 0.95{e % 7}"]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "instability"
    # a validation loss that only scatters by a few percent does not swing
    calm = "\n".join(line.replace(f"val_loss: {v:.4f}", f"val_loss: {0.31 + (i % 2) / 100:.4f}")
                     for i, (line, v) in enumerate(zip(lines, [x for x in vals for _ in (0, 1)])))
    rep2, _ = _diagnose(tmp_path, calm, name="calm.out")
    assert _symptom(rep2) != "instability"


def test_a_mid_run_excerpt_improving_on_validation_at_every_evaluation_is_healthy(tmp_path):
    lines = []
    for e, (tr, va) in enumerate([(2.412, 2.587), (2.409, 2.571), (2.405, 2.563), (2.404, 2.552)], start=61):
        lines += [f"| epoch {e:03d} | loss {tr} | ppl {2.718 ** tr:.2f} | lr 0.0003 | gnorm 0.41",
                  f"| epoch {e:03d} | valid on 'valid' subset | loss {va} | ppl {2.718 ** va:.2f} | best {va}"]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "healthy"
    # the same excerpt with validation no longer improving is a plateau
    stalled = "\n".join(line.replace("| loss 2.571", "| loss 2.601").replace("| loss 2.552", "| loss 2.597")
                        for line in lines)
    rep2, _ = _diagnose(tmp_path, stalled, name="stalled.out")
    assert _symptom(rep2) == "plateau"
