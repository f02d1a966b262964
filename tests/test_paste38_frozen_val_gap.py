"""Session 38: a validation accuracy that repeats one value while the training accuracy climbs far
above it is a model that fits its training set and does not carry it to held-out data - Train good,
val bad (overfitting) - not a model giving constant answers everywhere (not learning), which a
training accuracy as poor as the validation one still is. The logs are written for this test.
Torch-free.
"""

from conftest import diagnose_log_report


def _keras(train_accs, val_acc=0.6125):
    lines = []
    for e, acc in enumerate(train_accs, 1):
        loss = 1.2 * (1.0 - acc) + 0.05
        lines += [f"Epoch {e}/{len(train_accs)}",
                  f"40/40 [==============================] - 12s 300ms/step - loss: {loss:.4f} - accuracy: {acc:.4f}"
                  f" - val_loss: {1.9 + 0.3 * e:.4f} - val_accuracy: {val_acc:.4f}"]
    return "\n".join(lines)


def test_train_good_over_a_frozen_validation_is_overfitting(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _keras([0.84, 0.90, 0.92, 0.93, 0.95, 0.955, 0.96, 0.965]))
    assert rep["symptom"]["id"] == "overfitting"


def test_train_as_poor_as_a_frozen_validation_is_not_learning(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _keras([0.58, 0.60, 0.61, 0.60, 0.62, 0.61, 0.62, 0.61]))
    assert rep["symptom"]["id"] == "not_learning"
