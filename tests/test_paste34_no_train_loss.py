"""Pasted excerpts that print no training loss (issue 13, session 34, paste34): a validation loss
alone that is thrown between evaluations, accuracies alone that hold a learned level, an accuracy
alone that falls. Before, each was left without a symptom. Each sample is written for this test
(invented numbers in common print shapes) and asserts what a user reads off
``traindx diagnose --log FILE``. Torch-free.
"""

from conftest import diagnose_log_report, report_symptom


def _val_losses(values, start=0) -> str:
    return "\n".join(f"INFO:root:Epoch[{start + k}] Validation-logloss={v:.6f}" for k, v in enumerate(values)) + "\n"


def _val_accuracies(values, start=100, every=10) -> str:
    return "\n".join(f"Epoch(val) [{start + every * k}]  top1_acc: {v:.4f}  top5_acc: {min(1.0, v + 0.2):.4f}"
                     for k, v in enumerate(values)) + "\n"


def test_a_validation_loss_alone_thrown_between_two_levels_is_instability(tmp_path):
    vals = [0.47 if k % 2 == 0 else 0.63 for k in range(16)]
    rep, _ = diagnose_log_report(tmp_path, _val_losses(vals))
    assert report_symptom(rep) == "instability"


def test_a_validation_loss_alone_that_jumps_away_and_back_is_instability(tmp_path):
    vals = [1.92, 1.31, 1.88, 1.27, 1.35, 1.95, 1.30, 1.86, 1.33, 1.90]
    rep, _ = diagnose_log_report(tmp_path, _val_losses(vals, start=30))
    assert report_symptom(rep) == "instability"


def test_a_validation_loss_alone_that_scatters_by_a_percent_stays_a_plateau(tmp_path):
    vals = [0.8121, 0.8093, 0.8117, 0.8102, 0.8110, 0.8098, 0.8106, 0.8101, 0.8112, 0.8097, 0.8104, 0.8100]
    rep, _ = diagnose_log_report(tmp_path, _val_losses(vals, start=40))
    assert report_symptom(rep) == "plateau"


def test_a_validation_accuracy_alone_flat_at_a_learned_level_is_a_plateau(tmp_path):
    vals = [0.7212, 0.7231, 0.7208, 0.7225, 0.7219, 0.7230, 0.7214, 0.7222, 0.7227]
    rep, _ = diagnose_log_report(tmp_path, _val_accuracies(vals))
    assert report_symptom(rep) == "plateau"


def test_train_and_validation_accuracies_flat_at_a_high_level_are_a_plateau(tmp_path):
    lines = [f"[{40 + k}]\ttrain-acc:{0.9861 + 0.0001 * (k % 2):.6f}\teval-acc:{0.9702:.6f}" for k in range(12)]
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert report_symptom(rep) == "plateau"


def test_a_validation_accuracy_alone_flat_and_low_is_still_not_learning(tmp_path):
    vals = [0.1012, 0.0998, 0.1005, 0.1009, 0.1001, 0.0996, 0.1007, 0.1003, 0.1000]
    rep, _ = diagnose_log_report(tmp_path, _val_accuracies(vals))
    assert report_symptom(rep) == "not_learning"


def test_a_validation_accuracy_alone_that_falls_is_instability(tmp_path):
    """Half of what it learned lost (session 50: a fall to a quarter of the best or less in a record or
    two is a collapse, explosion - tests/test_pasted_session50.py; this one keeps half)."""
    vals = [0.512, 0.586, 0.611, 0.603, 0.41, 0.33, 0.30]
    rep, _ = diagnose_log_report(tmp_path, _val_accuracies(vals, start=1, every=1))
    assert report_symptom(rep) == "instability"


def test_a_validation_accuracy_alone_that_collapses_in_one_evaluation_is_an_explosion(tmp_path):
    vals = [0.512, 0.586, 0.611, 0.603, 0.147, 0.093, 0.088]
    rep, _ = diagnose_log_report(tmp_path, _val_accuracies(vals, start=1, every=1))
    assert report_symptom(rep) == "explosion"


def test_a_validation_accuracy_alone_that_rises_stays_healthy(tmp_path):
    vals = [0.312, 0.405, 0.488, 0.547, 0.593, 0.628, 0.655]
    rep, _ = diagnose_log_report(tmp_path, _val_accuracies(vals, start=1, every=1))
    assert report_symptom(rep) == "healthy"


def test_a_validation_accuracy_alone_moving_by_points_between_evaluations_is_no_plateau(tmp_path):
    """Flat over the log but thrown by several points from one evaluation to the next: no level to call a plateau."""
    vals = [0.652, 0.598, 0.671, 0.603, 0.660, 0.589, 0.668, 0.611, 0.655, 0.596, 0.664, 0.601]
    rep, _ = diagnose_log_report(tmp_path, _val_accuracies(vals))
    assert report_symptom(rep) != "plateau"
