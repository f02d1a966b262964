"""Symptom decisions from curves already read (issue 13, session 31, paste31d). Each sample is
written for this test (invented numbers in common print shapes) and asserts what a user reads off
``traindx diagnose --log FILE``. Torch-free.
"""

from conftest import diagnose_log_report, report_fact, report_symptom


# --------------------------- one validation line is a level, not a course: it shows no stall
def _mid_run(start, every, losses, vals):
    """Training lines from mid-run, each followed by its validation line where ``vals`` has one."""
    lines = []
    for k, v in enumerate(losses):
        step = start + every * k
        lines.append(f"step {step} | train_loss {v:.4f} | lr 2.0e-04")
        if vals.get(k) is not None:
            lines.append(f"step {step} | valid_loss {vals[k]:.4f}")
    return "\n".join(lines) + "\n"


def test_three_records_from_mid_run_with_one_evaluation_are_no_plateau(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _mid_run(41000, 400, [3.4172, 3.4095, 3.4128], {2: 3.1187}))
    assert report_fact(rep, "log_starts_mid_run") is True
    # a single validation number cannot say whether validation still improves: too short to judge
    assert report_symptom(rep) == "healthy"
    assert report_fact(rep, "val_evaluations") == 1


def test_three_records_from_mid_run_with_evaluations_that_got_worse_are_a_plateau(tmp_path):
    rep, _ = diagnose_log_report(
        tmp_path, _mid_run(41000, 400, [3.4172, 3.4095, 3.4128], {0: 3.1011, 1: 3.1143, 2: 3.1187}))
    assert report_fact(rep, "val_evaluations") == 3
    assert report_symptom(rep) == "plateau"
