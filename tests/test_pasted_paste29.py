"""Pasted console shapes mended in session 29 (issue 13). Each sample is written for this test
(invented numbers in the print shapes of common loggers) and asserts what the reader keeps or what
a user sees through ``traindx diagnose --log FILE``. Torch-free.
"""

from conftest import diagnose_log_report, report_fact, report_symptom

from traindx.probes.readers.console import read_console_text


def _xs(log, role):
    return [p.x for p in log[role].points]


# ------------------------------------------------------------------- a date is no batch counter
def test_a_month_day_year_date_before_each_record_is_not_read_as_a_counter():
    losses = [3.912, 3.544, 3.201, 2.987, 2.803, 2.655]
    text = "\n".join(f"INFO - 03/07/21 10:{k:02d}:15 - Epoch: [12][{25 * k}]   Time 0.41 (0.43)   "
                     f"Loss {v:.4f} ({sum(losses[:k + 1]) / (k + 1):.4f})   Lr: 0.0500"
                     for k, v in enumerate(losses))
    log = read_console_text(text)
    xs = _xs(log, "loss")
    # "03/07/21" read as the counter 3 of 7 put every record at one x; each record is its own point
    assert len(set(xs)) == len(losses)
    assert [round(p.mean, 4) for p in log["loss"].points] == losses


def test_a_batch_counter_beside_a_date_is_still_the_counter():
    text = "\n".join(f"2021/03/07 10:{k:02d}:15 train [{40 * (k + 1)}/400] loss: {2.5 - 0.2 * k:.3f}"
                     for k in range(6))
    log = read_console_text(text)
    assert len(set(_xs(log, "loss"))) == 6


# ------------------------------------------------- a validation loss that ends NaN, training finite
def _val_nan_log(train):
    rows = []
    for k, t in enumerate(train):
        val = "nan" if k >= 2 else f"{t * 1.07:.4f}"
        rows.append(f"epoch {k + 1:3d} | train_loss {t:.4f} | val_loss {val} | val_acc {0.41 + 0.01 * k:.3f}")
    return "\n".join(rows) + "\n"


def test_a_validation_loss_that_turns_nan_beside_a_finite_training_loss_is_explosion(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _val_nan_log([1.284, 1.102, 0.987, 0.941, 0.912, 0.897, 0.889]))
    assert report_fact(rep, "val_loss_nonfinite") is True
    assert report_symptom(rep) == "explosion"


def test_a_validation_loss_that_stays_finite_is_no_explosion(tmp_path):
    rows = [f"epoch {k + 1:3d} | train_loss {t:.4f} | val_loss {t * 1.07:.4f}"
            for k, t in enumerate([1.284, 1.102, 0.987, 0.941, 0.912, 0.897, 0.889])]
    rep, _ = diagnose_log_report(tmp_path, "\n".join(rows) + "\n")
    assert report_fact(rep, "val_loss_nonfinite") is False
    assert report_symptom(rep) != "explosion"


def test_a_nan_validation_loss_beside_a_frozen_training_loss_is_left_to_the_flat_rules(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _val_nan_log([2.71828] * 7))
    assert report_fact(rep, "val_loss_nonfinite") is True
    assert report_symptom(rep) != "explosion"


# ------------------------------------------------------------ a loss that drops straight to zero
def _keras(losses):
    rows = []
    for k, v in enumerate(losses):
        rows += [f"Epoch {k + 1}/{len(losses)}",
                 f"3125/3125 [==============================] - 41s 13ms/step - loss: {v:.4e}"]
    return "\n".join(rows) + "\n"


def test_a_loss_that_drops_from_an_ordinary_value_to_zero_and_stays_is_explosion(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _keras([2.3114, 1.5206, 0.8312, 0.0, 0.0, 0.0]))
    assert report_fact(rep, "loss_fell_to_zero") is True
    assert report_symptom(rep) == "explosion"


def test_a_loss_pinned_at_float32_epsilon_after_a_drop_is_explosion(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _keras([1.9021, 1.2287, 0.6513, 1.1921e-07, 1.1921e-07]))
    assert report_fact(rep, "loss_fell_to_zero") is True
    assert report_symptom(rep) == "explosion"


def test_a_loss_that_reaches_zero_through_small_values_is_no_explosion(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _keras([0.5132, 0.0521, 0.0043, 0.0003, 0.0, 0.0]))
    assert report_fact(rep, "loss_fell_to_zero") is False
    assert report_symptom(rep) != "explosion"
