"""A validation loss thrown back and forth by orders of magnitude is read as swinging from three
evaluations (session 28, ``curves.val_swing_few_evals``): the Instability symptom. One large fall
and a level after it, or fewer evaluations, are not."""

from conftest import diagnose_log_report, report_symptom


def _log(vals) -> str:
    lines = []
    for k, v in enumerate(vals):
        lines.append(f"epoch {12 + k}: train loss {0.5213 - 0.0004 * k:.4f}  train acc {0.741 + 0.001 * k:.3f}  "
                     f"eval loss {v}  eval acc 0.702")
    return "\n".join(lines) + "\n"


def test_a_validation_loss_thrown_by_orders_of_magnitude_is_instability(tmp_path):
    rep = diagnose_log_report(tmp_path, _log(["0.6734", "4.5e11", "0.7102"]))[0]
    assert report_symptom(rep) == "instability"


def test_one_large_fall_and_a_level_is_not(tmp_path):
    rep = diagnose_log_report(tmp_path, _log(["45.31", "0.6734", "0.6702"]))[0]
    assert report_symptom(rep) != "instability"


def test_two_evaluations_are_not_enough(tmp_path):
    rep = diagnose_log_report(tmp_path, _log(["0.6734", "4.5e11"]))[0]
    assert report_symptom(rep) != "instability"
