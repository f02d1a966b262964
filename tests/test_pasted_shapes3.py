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

from click.testing import CliRunner

from traindx.engine.frontends.cli import main
from traindx.probes.readers.console import read_console_text


def _diagnose(tmp_path, text, name="run.out"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["diagnose", "--log", str(p), "--non-interactive", "--format", "json"])
    assert res.exit_code == 0, res.output
    out = res.output
    rep = json.loads(out[out.index("{"):])
    return rep, out


def _symptom(rep):
    if rep["status"] in ("healthy", "out_of_scope"):
        return rep["status"]
    return rep["symptom"]["id"] if rep.get("symptom") else None


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
