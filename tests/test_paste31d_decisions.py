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


# -------------- an accuracy at 0 at every record gets nothing right, whatever the losses creep
def test_a_creeping_loss_beside_an_accuracy_of_zero_at_every_epoch_is_not_learning(tmp_path):
    lines = []
    loss, val = 1.2437, 1.2519
    for epoch in range(57, 65):
        lines.append(f"Epoch {epoch}/200")
        lines.append(f"4/4 [==============================] - 0s 12ms/step - loss: {loss:.4f} - accuracy: 0.0000e+00"
                     f" - val_loss: {val:.4f} - val_accuracy: 0.0000e+00")
        loss -= 0.0031
        val -= 0.0027
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert report_fact(rep, "accuracy_all_zero") is True
    # the validation loss improves at every epoch, but not one prediction is ever right
    assert report_symptom(rep) == "not_learning"
