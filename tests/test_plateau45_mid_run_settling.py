"""A mid-run excerpt whose loss still fell a little and then levelled (issue 13, session 45,
plateau45): the slow tail of a converging run, healthy — not a plateau. A large fall that stopped
mid-run, a mid-run excerpt that did not fall at all and the same small fall seen from the run's
start stay plateaus. Each sample is written for this test (invented numbers in a common print
shape) and asserts what a user reads off ``traindx diagnose --log FILE``. Torch-free.
"""

from conftest import diagnose_log_report, report_fact, report_symptom


def _steps(start, every, losses):
    return "\n".join(f"step {start + every * k} | loss {v:.4f} | lr 3.0e-04"
                     for k, v in enumerate(losses)) + "\n"


SMALL_FALL = [1.262, 1.231, 1.198, 1.172, 1.158, 1.150, 1.152, 1.147, 1.149, 1.151, 1.146, 1.149, 1.148, 1.150]


def test_a_small_fall_that_levels_late_in_a_run_is_healthy(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _steps(40000, 200, SMALL_FALL))
    assert report_fact(rep, "log_starts_mid_run") is True
    assert report_fact(rep, "loss_trend") == "plateaued"
    assert report_fact(rep, "loss_decrease_fraction") < 0.2
    assert report_symptom(rep) == "healthy"


def test_the_same_small_fall_from_the_start_of_the_run_is_a_plateau(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _steps(0, 200, SMALL_FALL))
    assert report_fact(rep, "log_starts_mid_run") is not True
    assert report_fact(rep, "loss_trend") == "plateaued"
    assert report_symptom(rep) == "plateau"


def test_a_large_fall_that_stopped_mid_run_is_a_plateau(tmp_path):
    losses = [2.41, 1.62, 1.21, 1.06, 1.02, 1.01, 1.015, 1.008, 1.012, 1.009, 1.011, 1.007, 1.010, 1.009]
    rep, _ = diagnose_log_report(tmp_path, _steps(40000, 200, losses))
    assert report_fact(rep, "log_starts_mid_run") is True
    assert report_fact(rep, "loss_decrease_fraction") >= 0.2
    assert report_symptom(rep) == "plateau"


def test_a_mid_run_excerpt_that_does_not_fall_is_still_a_plateau(tmp_path):
    losses = [2.412, 2.398, 2.421, 2.405, 2.417, 2.401, 2.409, 2.414, 2.399, 2.411, 2.404, 2.416]
    rep, _ = diagnose_log_report(tmp_path, _steps(30000, 200, losses))
    assert report_fact(rep, "loss_trend") == "flat"
    assert report_symptom(rep) == "plateau"


def test_a_small_fall_mid_run_beside_a_stuck_validation_loss_is_a_plateau(tmp_path):
    rows = list(zip(SMALL_FALL, [0.912, 0.905, 0.903, 0.906, 0.904, 0.907, 0.905, 0.908, 0.906, 0.909, 0.907,
                                 0.908, 0.910, 0.909]))
    text = "\n".join(f"step {40000 + 200 * k} | loss {t:.4f} | val_loss {v:.4f}"
                     for k, (t, v) in enumerate(rows)) + "\n"
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_fact(rep, "log_starts_mid_run") is True
    # the validation loss's best lies behind it: validation stuck while training creeps down
    assert report_symptom(rep) == "plateau"
