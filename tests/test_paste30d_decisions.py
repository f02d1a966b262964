"""Symptom decisions from curves already read (issue 13, session 30, paste30d). Each sample is
written for this test (invented numbers in common print shapes) and asserts what a user reads off
``traindx diagnose --log FILE``. Torch-free.
"""

from conftest import diagnose_log_report, report_fact, report_symptom


# ------------------------------------- a few records from mid-run cannot show a plateau
def _excerpt(start, every, losses):
    return "\n".join(f"step {start + every * k} | loss {v:.4f} | lr 3.0e-04"
                     for k, v in enumerate(losses)) + "\n"


def test_three_records_from_late_in_a_run_are_too_few_to_call_a_plateau(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _excerpt(24000, 500, [1.8731, 1.8655, 1.8702]))
    assert report_fact(rep, "log_starts_mid_run") is True
    assert report_fact(rep, "loss_trend") == "flat"
    # three numbers carry no noise band: a slow late descent and a stall read the same
    assert report_symptom(rep) == "healthy"


def test_four_records_from_mid_run_are_still_no_plateau(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _excerpt(9000, 250, [0.6412, 0.6398, 0.6420, 0.6377]))
    assert report_symptom(rep) == "healthy"


def test_a_long_flat_stretch_from_mid_run_is_still_a_plateau(tmp_path):
    losses = [2.412, 2.398, 2.421, 2.405, 2.417, 2.401, 2.409, 2.414, 2.399, 2.411, 2.404, 2.416]
    rep, _ = diagnose_log_report(tmp_path, _excerpt(30000, 200, losses))
    assert report_fact(rep, "loss_trend") == "flat"
    assert report_symptom(rep) == "plateau"


def test_a_few_records_from_mid_run_at_chance_are_still_not_learning(tmp_path):
    # ten classes, ln 10 = 2.303, accuracy at a tenth: nothing learned, however short the excerpt
    text = "\n".join(f"step {5000 + 500 * k} | loss {v:.4f} | acc {a:.3f}"
                     for k, (v, a) in enumerate([(2.3031, 0.098), (2.3027, 0.101), (2.3029, 0.099)])) + "\n"
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) == "not_learning"


# ------------------------------- a short flat tail after a long fall is settling, not a plateau
def _epochs(losses):
    return "\n".join(f"Epoch {k + 1}/{len(losses)} - loss: {v:.4f}" for k, v in enumerate(losses)) + "\n"


def test_a_loss_that_fell_for_most_of_the_run_and_levelled_at_the_end_is_healthy(tmp_path):
    losses = [2.31, 1.85, 1.52, 1.27, 1.08, 0.93, 0.82, 0.74, 0.68,
              0.64, 0.61, 0.595, 0.62, 0.58, 0.61, 0.59, 0.605, 0.6]
    rep, _ = diagnose_log_report(tmp_path, _epochs(losses))
    assert report_fact(rep, "loss_trend") == "plateaued"
    assert report_fact(rep, "loss_flat_share") < 0.5
    assert report_symptom(rep) == "healthy"


def test_a_loss_flat_for_most_of_the_run_after_its_fall_is_a_plateau(tmp_path):
    losses = [2.31, 1.35, 1.02, 0.98, 0.985, 0.979, 0.983, 0.977, 0.981, 0.978, 0.982, 0.979, 0.98]
    rep, _ = diagnose_log_report(tmp_path, _epochs(losses))
    assert report_fact(rep, "loss_trend") == "plateaued"
    assert report_fact(rep, "loss_flat_share") >= 0.5
    assert report_symptom(rep) == "plateau"


def test_a_few_records_from_mid_run_with_validation_stalled_are_a_plateau(tmp_path):
    rows = [(0.8312, 0.9120), (0.8297, 0.9034), (0.8305, 0.9101), (0.8290, 0.9088)]
    text = "\n".join(f"epoch {41 + k} | train_loss {t:.4f} | val_loss {v:.4f}" for k, (t, v) in enumerate(rows)) + "\n"
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_fact(rep, "val_still_improving") is None
    # the evaluations show the stall the four training records cannot
    assert report_symptom(rep) == "plateau"
