"""Pasted excerpts whose printed step time stalls (issue 13, session 35, paste35): a loss that falls
normally while every few steps one step takes many times the typical one (a DataLoader running dry,
a checkpoint written inside the loop) is the Training Slow symptom; before, such a run was read as
healthy, or as unstable from its noisy loss. Each sample is written for this test (invented numbers
in common print shapes) and asserts what a user reads off ``traindx diagnose --log FILE``. Torch-free.
"""

from conftest import diagnose_log_report, report_symptom


def _lines(losses, times, every=10) -> str:
    return "\n".join(f"step {every * (k + 1)}, loss = {loss:.4f} ({t:.3f} sec/step)"
                     for k, (loss, t) in enumerate(zip(losses, times))) + "\n"


def _falling(n, start=2.4, rate=0.93):
    return [start * rate ** k for k in range(n)]


def test_a_falling_loss_whose_step_stalls_every_few_steps_is_slow_training(tmp_path):
    times = [4.1] + [7.9 if k % 4 == 3 else 0.42 + 0.01 * (k % 3) for k in range(15)]
    rep, _ = diagnose_log_report(tmp_path, _lines(_falling(16), times))
    assert report_symptom(rep) == "slow_training"
    ev = [e["fact"] for e in rep["symptom"]["evidence"]]
    assert "step_time_stalls" in ev


def test_stalls_beside_a_noisy_loss_are_slow_training_not_instability(tmp_path):
    losses = [1.9, 1.2, 2.1, 1.1, 1.8, 0.9, 2.0, 1.0, 1.7, 0.95, 1.9, 1.05, 1.75, 0.9]
    times = [2.2, 2.3, 41.0, 2.1, 2.4, 2.2, 38.5, 2.3, 2.2, 2.1, 44.0, 2.2, 2.3, 2.2]
    rep, _ = diagnose_log_report(tmp_path, _lines(losses, times))
    assert report_symptom(rep) == "slow_training"


def test_one_slow_step_among_many_is_no_slow_run(tmp_path):
    times = [3.0] + [0.31 + 0.01 * (k % 4) for k in range(39)]
    times[25] = 4.0
    rep, _ = diagnose_log_report(tmp_path, _lines(_falling(40, rate=0.97), times))
    assert report_symptom(rep) != "slow_training"


def test_a_slow_first_step_is_warm_up_not_a_stall(tmp_path):
    times = [25.0] + [0.5 + 0.02 * (k % 3) for k in range(15)]
    rep, _ = diagnose_log_report(tmp_path, _lines(_falling(16), times))
    assert report_symptom(rep) != "slow_training"


def test_stalls_do_not_hide_a_loss_that_goes_nan(tmp_path):
    losses = [2.3, 2.1, 1.9, 3.5, 9.8, 41.0, float("nan"), float("nan")]
    times = [0.5, 0.5, 6.0, 0.5, 0.5, 6.1, 0.5, 0.5]
    rep, _ = diagnose_log_report(tmp_path, _lines(losses, times))
    assert report_symptom(rep) == "explosion"



def test_a_step_that_also_evaluates_is_no_stall(tmp_path):
    lines = []
    for k in range(16):
        loss = 2.0 * 0.95 ** k
        ev = f", val_loss = {1.6 * 0.96 ** k:.4f}" if k % 4 == 3 else ""
        t = 9.1 if ev else 0.28 + 0.01 * (k % 3)
        lines.append(f"step {10 * (k + 1)}, loss = {loss:.4f}{ev} ({t:.3f} sec/step)")
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert report_symptom(rep) != "slow_training"


def test_a_single_slow_record_in_a_short_excerpt_is_a_one_off(tmp_path):
    times = [1.2, 0.31, 0.29, 7.4, 0.30, 0.32, 0.30, 0.31]
    rep, _ = diagnose_log_report(tmp_path, _lines(_falling(8), times))
    assert report_symptom(rep) != "slow_training"
