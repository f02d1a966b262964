"""Session 43 (fused43): a forecasting run printed the way a widely copied time-series library prints it: one record
per epoch, ``Epoch: 3, Steps: 88 | Train Loss: ... Vali Loss: ... Test Loss: ...`` (``Steps`` is the epoch's size,
the same every epoch), and an early-stopping helper's ``Validation loss decreased (inf --> 0.177827).  Saving model
...`` after the first evaluation. The ``inf`` is the helper's empty best, not a loss that blew up, and the eight
records are eight points of a curve, not one: the report neither calls the run an explosion nor reads it as a
single record. A loss printed as ``inf`` is still a non-finite loss. Log written for this test. Torch-free.
"""

from conftest import diagnose_log_report, report_fact, report_symptom


def _log(first_train: str = "0.2798934") -> str:
    rows = ["Args in experiment:", "Use CPU", ">>>>>>>start training : forecast_96_24>>>>>>>>>>>>", "train 2821",
            "val 397"]
    best = "inf"
    train = [float(first_train) if first_train != "inf" else float("inf"), 0.1897, 0.1781, 0.1740, 0.1727, 0.1718,
             0.1710, 0.1709]
    vals = [0.1778, 0.1671, 0.1644, 0.1630, 0.1626, 0.1623, 0.1622, 0.1621]
    for e, (t, v) in enumerate(zip(train, vals), start=1):
        rows.append(f"Epoch: {e} cost time: 8.3")
        rows.append(f"Epoch: {e}, Steps: 88 | Train Loss: {t:.7f} Vali Loss: {v:.7f} Test Loss: {v + 0.003:.7f}")
        rows.append(f"Validation loss decreased ({best} --> {v:.6f}).  Saving model ...")
        rows.append(f"Updating learning rate to {0.001 / 2 ** (e - 1)}")
        best = f"{v:.6f}"
    return "\n".join(rows) + "\n"


def test_an_early_stopping_helpers_empty_best_is_no_nan_and_each_epoch_is_a_point(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _log())
    assert report_fact(rep, "loss_has_nonfinite") is not True
    assert report_symptom(rep) != "explosion"
    assert report_fact(rep, "run_length_steps") > 88
    assert report_fact(rep, "loss_trend") in ("decreasing", "plateaued")


def test_a_loss_printed_as_inf_is_still_non_finite(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _log(first_train="inf"))
    assert report_fact(rep, "loss_has_nonfinite") is True
