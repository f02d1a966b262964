"""A pasted excerpt that prints only its validation loss (issue 13, session 32, paste32): its course
is what the log says of the run. Flat over the latter half: the plateau; still falling: a run that
learns. Each sample is written for this test (invented numbers in common print shapes) and asserts
what a user reads off ``traindx diagnose --log FILE``. Torch-free.
"""

from conftest import diagnose_log_report, report_symptom


def _evals(values, start=40) -> str:
    return "\n".join(f"=> epoch {start + k}: eval loss = {v:.5f} (saved checkpoint)"
                     for k, v in enumerate(values)) + "\n"


def test_a_flat_validation_history_alone_is_a_plateau(tmp_path):
    vals = [0.8121, 0.8093, 0.8117, 0.8102, 0.8110, 0.8098, 0.8106, 0.8101, 0.8112, 0.8097, 0.8104, 0.8100]
    rep, _ = diagnose_log_report(tmp_path, _evals(vals))
    assert report_symptom(rep) == "plateau"


def test_a_falling_validation_history_alone_is_healthy(tmp_path):
    vals = [2.91, 2.43, 2.05, 1.78, 1.55, 1.37, 1.22, 1.10, 0.99, 0.90]
    rep, _ = diagnose_log_report(tmp_path, _evals(vals, start=1))
    assert report_symptom(rep) == "healthy"


def test_a_flat_validation_loss_beside_a_falling_training_loss_is_not_read_alone(tmp_path):
    """With the training loss printed the two-curve rules decide (a falling training loss is no plateau)."""
    lines = []
    for k in range(12):
        lines.append(f"epoch {k + 1} train loss {2.0 * 0.85 ** k:.4f}")
        lines.append(f"epoch {k + 1} eval loss {0.81 + 0.001 * (k % 3):.4f}")
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines) + "\n")
    assert report_symptom(rep) != "plateau"


def test_a_validation_history_alone_that_alternates_is_no_plateau(tmp_path):
    """Thrown between two levels at every evaluation (by about a third): no level, so no plateau is named."""
    vals = [0.45 if k % 2 == 0 else 0.61 for k in range(14)]
    rep, _ = diagnose_log_report(tmp_path, _evals(vals))
    assert report_symptom(rep) != "plateau"
