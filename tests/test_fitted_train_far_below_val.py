"""A training loss that has fit its data beside a validation loss several times above it, in an
excerpt that shows no curve of them (a run's closing summary line, one evaluation), is Train good,
val bad (session 27, ``symptom-fitted-train-far-below-val``)."""

from conftest import diagnose_log_report, report_symptom


def test_a_closing_summary_of_a_fitted_model_is_overfitting(tmp_path):
    text = ("Training finished after 120 epochs\n"
            "epoch 120 | train_loss=0.0143 | val_loss=2.407 | lr=0.0001\n")
    rep = diagnose_log_report(tmp_path, text)[0]
    assert report_symptom(rep) == "overfitting"


def test_one_record_with_validation_many_times_above_is_overfitting(tmp_path):
    text = "\n".join(["global step 52000 learning rate 0.0100 step-time 0.21 train loss 0.0310",
                      "  eval: val loss 3.1704"]) + "\n"
    rep = diagnose_log_report(tmp_path, text)[0]
    assert report_symptom(rep) == "overfitting"


def test_a_fitted_loss_with_validation_close_by_is_not(tmp_path):
    text = "epoch 120 | train_loss=0.0143 | val_loss=0.0301 | lr=0.0001\n"
    rep = diagnose_log_report(tmp_path, text)[0]
    assert report_symptom(rep) != "overfitting"


def test_validation_still_falling_far_above_is_not(tmp_path):
    text = "\n".join(f"epoch {e} train_loss {0.5 / e:.4f} val_loss {3.0 - 0.2 * e:.4f}" for e in range(1, 11)) + "\n"
    rep = diagnose_log_report(tmp_path, text)[0]
    assert report_symptom(rep) != "overfitting"
