"""Pasted console shapes read right in session 30 (paste30r, issue 13). Each sample is written for this
test (invented numbers in the print shapes of common loggers) and asserts what the reader keeps or what a
user sees through ``traindx diagnose --log FILE``. Torch-free.
"""

from conftest import diagnose_log_report, report_symptom

from traindx.probes.readers.console import read_console_text


def _means(log, role):
    return [round(p.mean, 4) for p in log[role].points]


# ------------------------------------------------ a total printed after the parts it sums
def test_a_total_loss_printed_after_its_parts_is_the_loss():
    parts = [(0.91, 1.62), (0.84, 1.50), (0.77, 1.41), (0.70, 1.33)]
    text = "\n".join(f"Epoch: 3/50. Iteration: {20 * (k + 1)}/200. Cls loss: {c:.2f}. Box loss: {b:.2f}. "
                     f"Total loss: {c + b:.2f}" for k, (c, b) in enumerate(parts))
    log = read_console_text(text)
    assert log.columns["loss"] == "Total loss"
    assert _means(log, "loss") == [round(c + b, 2) for c, b in parts]


def test_a_validation_total_beside_its_parts_is_the_validation_loss():
    text = "\n".join(f"Val. Epoch: {e}/90. Focal loss: {0.5 - 0.01 * e:.3f}. Smooth L1 loss: {2.0 - 0.02 * e:.3f}. "
                     f"Total loss: {2.5 - 0.03 * e:.3f}" for e in range(1, 7))
    log = read_console_text(text)
    assert log.columns["val_loss"] == "Total loss"


def test_a_plain_loss_beside_a_named_part_is_the_loss():
    text = "\n".join(f"iter {100 * k} | reconstruction loss {0.3 + 0.01 * k:.3f} | train loss {2.4 - 0.2 * k:.3f}"
                     for k in range(1, 7))
    log = read_console_text(text)
    assert log.columns["loss"] == "train loss"


def test_a_loss_named_by_its_function_alone_is_still_the_loss():
    text = "\n".join(f"step {50 * k} CE loss {2.3 - 0.1 * k:.3f} acc {0.3 + 0.05 * k:.3f}" for k in range(1, 7))
    log = read_console_text(text)
    assert log.columns["loss"] == "CE loss"


def test_a_named_part_printed_alone_is_still_read_as_the_loss():
    text = "\n".join(f"step {50 * k} Reconstruction loss {1.3 - 0.1 * k:.3f}" for k in range(1, 7))
    log = read_console_text(text)
    assert log.columns["loss"] == "Reconstruction loss"


# ------------------------------------------------- a boosting library's classification error rate
def test_a_boosting_error_rate_per_data_set_is_read_as_accuracies():
    text = "\n".join(f"[{k}]\ttrain-error:{0.2 - 0.01 * k:.4f}\teval-error:{0.25 - 0.005 * k:.4f}" for k in range(8))
    log = read_console_text(text)
    assert log.columns == {"accuracy": "train-error", "val_accuracy": "eval-error"}
    assert _means(log, "val_accuracy")[-1] == round(1 - (0.25 - 0.005 * 7), 4)


def test_a_boosting_error_rate_behind_a_clock_is_read():
    rows = []
    for k in range(30, 38):
        rows.append(f"[11:02:{k:02d}] [{k}] valid-merror:{0.31 - 0.002 * k:.5f}\ttrain-merror:{0.2 - 0.003 * k:.5f}")
        rows.append(f"[11:02:{k:02d}] boosting round {k + 1}, {2.5 * k:.3f} sec elapsed")
    log = read_console_text("\n".join(rows))
    assert set(log.columns) >= {"accuracy", "val_accuracy"}
    assert [p.x for p in log["accuracy"].points][:2] == [30.0, 31.0]


def test_lightgbm_possessive_error_rates_are_read_per_data_set():
    text = "\n".join(f"[{10 * k}]\ttraining's multi_error: {0.3 - 0.02 * k:.4f}\tvalid_1's multi_error: "
                     f"{0.35 - 0.01 * k:.4f}" for k in range(1, 8))
    log = read_console_text(text)
    assert log.columns["val_accuracy"].endswith("multi_error")
    assert log.columns["accuracy"].endswith("multi_error")


def test_a_train_error_printed_apart_is_still_the_objective():
    text = "\n".join(f"iteration {k} train error {1.5 - 0.1 * k:.3f}" for k in range(1, 8))
    log = read_console_text(text)
    assert "loss" in log.columns and "accuracy" not in log.columns


# ------------------------------------- Keras's last ETA redraw, then the epoch line with the same loss
def _keras_epochs(losses, vals):
    rows = []
    for e, (t, v) in enumerate(zip(losses, vals), 1):
        rows += [f"Epoch {e}/30",
                 f"812/812 [==============================] - ETA: 0s - loss: {t:.4f} - accuracy: {0.7 + 0.03 * e:.4f}",
                 f"Epoch {e}: saving model to ckpt/model_{e}",
                 f"812/812 [==============================] - 95s 117ms/step - loss: {t:.4f} - "
                 f"accuracy: {0.7 + 0.03 * e:.4f} - val_loss: {v:.4f} - val_accuracy: {0.72 + 0.02 * e:.4f}"]
    return "\n".join(rows) + "\n"


def test_a_keras_last_redraw_and_its_epoch_line_are_one_point():
    losses, vals = [0.812, 0.655, 0.571, 0.508], [0.702, 0.621, 0.566, 0.532]
    log = read_console_text(_keras_epochs(losses, vals))
    assert _means(log, "loss") == losses
    assert _means(log, "val_loss") == vals


def test_a_falling_keras_run_pasted_into_its_next_epoch_is_healthy(tmp_path):
    # two whole epochs and the last redraw of the third: each loss printed twice read as a flat pair
    text = _keras_epochs([0.9, 0.71], [0.75, 0.68])
    text += "Epoch 3/30\n812/812 [==============================] - ETA: 0s - loss: 0.6000 - accuracy: 0.7900\n"
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_symptom(rep) == "healthy"


# ------------------------------------------- a split word glued to its metric word (``trainloss``)
def test_split_words_glued_to_the_metric_are_read_per_split():
    rows = []
    for k in range(1, 7):
        rows.append(f"| epoch {k:03d} | {1000 * k:07d} updates | trainloss {6.2 - 0.4 * k:6.2f} | train ppl "
                    f"{2 ** (6.2 - 0.4 * k):8.2f}")
        rows.append(f"| epoch {k:03d} | validloss {6.0 - 0.3 * k:6.2f} | valid ppl {2 ** (6.0 - 0.3 * k):8.2f}")
    log = read_console_text("\n".join(rows))
    assert log.columns["loss"] == "trainloss"
    assert log.columns["val_loss"] == "validloss"
    assert _means(log, "loss")[0] == 5.8


def test_glued_accuracy_names_are_read():
    text = "\n".join(f"ep {k} trainacc={0.5 + 0.05 * k:.3f} valacc={0.45 + 0.04 * k:.3f}" for k in range(1, 7))
    log = read_console_text(text)
    assert log.columns == {"accuracy": "trainacc", "val_accuracy": "valacc"}


def test_short_split_words_glued_in_capitals_are_read_per_split():
    text = "\n".join(f"  EPOCH= {k:4d}  TRLOSS= {0.9 - 0.05 * k:.5E}  TRACC = {0.6 + 0.02 * k:.4E}  "
                     f"VALOSS= {1.0 - 0.03 * k:.5E}  VAACC = {0.55 + 0.02 * k:.4E}" for k in range(1, 9))
    log = read_console_text(text)
    assert log.columns == {"loss": "TRLOSS", "accuracy": "TRACC", "val_loss": "VALOSS", "val_accuracy": "VAACC"}
