"""A console log that prints one steady learning rate answers "What is the learning rate?" by
itself. A schedule (a decay's tail, a warm-up cut before its top, a StepLR from the first print)
does not: its peak need not be the rate the run was given, so the question stays open rather than
reading a value the run was never given."""
import json

from click.testing import CliRunner

from traindx.engine.frontends.cli import main


def _console(path, lrs, first_step=1, loss=lambda i: 2.3026 + (i % 2) * 3e-4):
    lines = ["Using device: cpu", "Starting training..."]
    for i, lr in enumerate(lrs):
        step = first_step + 10 * i
        lines.append(f"[train] step {step:6d} | loss {loss(i):.4f} | lr {lr:.3e} | 0.21s/it")
    path.write_text("\n".join(lines) + "\n")
    return path


def _diagnose(*args):
    res = CliRunner().invoke(main, ["diagnose", *args, "--non-interactive", "--format", "json"])
    assert res.exit_code == 0, res.output
    out = res.output
    return json.loads(out[out.index("\n{") + 1:] if not out.startswith("{") else out)


def _lr(rep):
    return next((f for f in rep["facts"] if f["fact"] == "learning_rate"), None)


def _asks_lr(rep):
    return any("learning rate?" in g for g in rep["information_gaps"])


def test_a_steady_logged_lr_is_read_and_not_asked_for(tmp_path):
    rep = _diagnose("--log", str(_console(tmp_path / "nohup.out", [3e-4] * 30, first_step=5000)))
    lr = _lr(rep)
    assert lr is not None and lr["value"] == 3e-4 and lr["source"].startswith("log:nohup.out")
    assert not _asks_lr(rep), rep["information_gaps"]


def test_a_tiny_steady_lr_in_the_log_alone_names_lr_too_low(tmp_path):
    rep = _diagnose("--log", str(_console(tmp_path / "train.log", [1e-7] * 40)))
    assert rep["symptom"]["id"] == "not_learning"
    assert rep["root_causes"] and rep["root_causes"][0]["id"] == "lr_too_low", rep["root_causes"]


def test_a_schedule_logged_from_the_start_is_not_read_as_one_lr(tmp_path):
    lrs = [0.06 * 0.3 ** (i // 5) for i in range(30)]           # a StepLR may have moved before the first print
    rep = _diagnose("--log", str(_console(tmp_path / "run.out", lrs)))
    assert _lr(rep) is None
    assert _asks_lr(rep)


def test_a_mid_run_excerpt_of_a_decaying_schedule_leaves_the_question_open(tmp_path):
    lrs = [2e-4 * 0.97 ** i for i in range(30)]                 # cosine tail: 2e-4 -> 8e-5
    rep = _diagnose("--log", str(_console(tmp_path / "tail.out", lrs, first_step=90000)))
    assert _lr(rep) is None
    assert _asks_lr(rep)


def test_a_warm_up_cut_before_its_top_leaves_the_question_open(tmp_path):
    lrs = [1e-5 * (i + 1) for i in range(30)]                   # still rising at the end
    rep = _diagnose("--log", str(_console(tmp_path / "warm.out", lrs)))
    assert _lr(rep) is None
