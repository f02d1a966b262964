"""Session 23 (issue 13, pasted console logs): evidence a pasted excerpt holds that was read wrong.

- A clock value (an ``eta: 2 days, 3:59:15`` before the step's ``time:`` and ``data_time:``, as
  mmengine, mmdet and YOLOX print every line) ended no name: the reader joined ``eta`` to the next
  name (``eta time``, ``eta lr``), so the step time and the data-loading time went unread.

Each sample is written for this test (invented numbers in the print shapes of common code) and
asserts what a user sees through ``traindx diagnose --log FILE`` or what the reader keeps; each has
a twin that must not change. Torch-free.
"""

import pytest
from conftest import diagnose_log_report, report_symptom

from traindx.probes.readers.console import read_console_text


def _mm_lines(eta: str, data_time: float, losses: list) -> str:
    return "".join(
        f"2024/03/02 10:{11 + k:02d}:05 - mmengine - INFO - Epoch(train)  [1][{40 + k}/2000]  "
        f"lr: 1.0000e-02  eta: {eta}  time: 9.0113  data_time: {data_time:.4f}  memory: 9120  "
        f"loss: {v:.4f}  loss_cls: {v / 2:.4f}\n"
        for k, v in enumerate(losses))


_SLOW_FALL = [6.412, 6.371, 6.335, 6.297, 6.262, 6.228, 6.190, 6.153]
_FALL = [6.412, 5.103, 4.322, 3.817, 3.506, 3.311, 3.198, 3.121]


@pytest.mark.parametrize("eta", ["2 days, 3:59:15", "3:59:15", "0:00:05"])
def test_an_eta_clock_before_the_step_time_leaves_the_step_and_data_times_read(eta):
    log = read_console_text(_mm_lines(eta, 7.4021, _SLOW_FALL))
    share, lines, _ = log.data_wait
    assert lines == len(_SLOW_FALL)
    assert share == pytest.approx(7.4021 / 9.0113, rel=1e-3)
    assert log.columns["lr"] == "lr" and "step_time" in log.series


def test_the_same_line_without_an_eta_reads_the_same():
    with_eta = read_console_text(_mm_lines("1:02:03", 0.0114, _SLOW_FALL))
    without = read_console_text(_mm_lines("1:02:03", 0.0114, _SLOW_FALL).replace("eta: 1:02:03  ", ""))
    assert with_eta.data_wait == pytest.approx(without.data_wait)
    assert with_eta.columns == without.columns


def test_an_excerpt_whose_steps_wait_on_the_loader_reads_as_slow_training(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _mm_lines("2 days, 4:24:09", 7.4021, _FALL))
    assert report_symptom(rep) == "slow_training"
    facts = {f["fact"]: f["value"] for f in rep["facts"]}
    assert facts["data_time_fraction"] >= 0.7


def test_the_same_excerpt_with_a_fast_loader_is_not_slow_training(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _mm_lines("2 days, 4:24:09", 0.0114, _FALL))
    assert report_symptom(rep) != "slow_training"
    facts = {f["fact"]: f["value"] for f in rep["facts"]}
    assert facts["data_time_fraction"] < 0.1


# ---------------------------------------------------------------- chance read from loss and accuracy
_LEVELLED = [2.912, 2.604, 2.455, 2.381, 2.342, 2.325, 2.318, 2.315, 2.314, 2.314]


def _keras(losses: list, val_acc: list) -> str:
    n = len(losses)
    return "".join(f"Epoch {k + 1}/{n}\n1875/1875 [==============================] - 9s 5ms/step - loss: {v:.4f}"
                   f" - accuracy: {a - 0.004:.4f} - val_loss: {v + 0.002:.4f} - val_accuracy: {a:.4f}\n"
                   for k, (v, a) in enumerate(zip(losses, val_acc)))


def test_a_loss_levelled_at_ln10_beside_an_accuracy_of_a_tenth_is_not_learning(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _keras(_LEVELLED, [0.1064, 0.0982, 0.1031] * 3 + [0.1064]))
    assert report_symptom(rep) == "not_learning"


def test_the_same_loss_beside_an_accuracy_well_above_a_tenth_stays_a_plateau(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _keras(_LEVELLED, [0.402, 0.431, 0.447] * 3 + [0.452]))
    assert report_symptom(rep) == "plateau"


def _mid_run(losses: list, acc: float) -> str:
    return "".join(f"Epoch {120 + k}/300, step 200/200, loss = {v:.4f}, acc = {acc + 0.002 * (k % 2):.4f}\n"
                   for k, v in enumerate(losses))


_FLAT_NEAR_LN2 = [0.7223, 0.7219, 0.7228, 0.7215, 0.7226, 0.7220, 0.7224, 0.7218]


def test_a_flat_excerpt_near_ln2_beside_an_accuracy_of_a_half_is_not_learning(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _mid_run(_FLAT_NEAR_LN2, 0.498))
    assert report_symptom(rep) == "not_learning"


def test_the_same_excerpt_beside_an_accuracy_of_seventy_percent_is_a_plateau(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _mid_run(_FLAT_NEAR_LN2, 0.701))
    assert report_symptom(rep) == "plateau"


# ------------------------------------------------------------------------ a flat loss during warm-up
_FLATISH = [1.912, 1.905, 1.921, 1.898, 1.907, 1.893, 1.911, 1.889, 1.902, 1.894]


def _d2(losses: list, lrs: list) -> str:
    return "".join(f"[10/24 10:{15 + k:02d}:04 d2.utils.events]:  eta: 0:13:08  iter: {619 + 20 * k}  "
                   f"total_loss: {v:.3f}  loss_cls: {v * 0.75:.3f}  time: 0.5756  data_time: 0.0068  "
                   f"lr: {lr:.6f}  max_mem: 10458M\n" for k, (v, lr) in enumerate(zip(losses, lrs)))


def test_a_flat_excerpt_while_the_learning_rate_warms_up_is_slow_training(tmp_path):
    warm = [0.000062 + 0.000002 * k for k in range(len(_FLATISH))]
    rep, _ = diagnose_log_report(tmp_path, _d2(_FLATISH, warm))
    facts = {f["fact"]: f["value"] for f in rep["facts"]}
    assert facts["lr_rising"] is True
    assert report_symptom(rep) == "slow_training"


def test_the_same_excerpt_at_a_held_learning_rate_is_a_plateau(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _d2(_FLATISH, [0.0002] * len(_FLATISH)))
    facts = {f["fact"]: f["value"] for f in rep["facts"]}
    assert facts["lr_rising"] is False
    assert report_symptom(rep) == "plateau"


def test_a_rate_that_rises_and_then_decays_is_no_warm_up_under_way():
    lrs = [0.0001, 0.0002, 0.0003, 0.0002, 0.0001]
    log = read_console_text(_d2(_FLATISH[:5], lrs))
    from traindx.probes.readers import curves
    facts = {f.fact: f.value for f in curves.analyze(log)[0]}
    assert facts["lr_rising"] is False
