"""Console excerpts in the shapes of session 14's tuning material (pasted set fresh9 and the pasted
tuning sets before it): each sample is written for this test — synthetic numbers in the print
shapes of common tools — and asserts what a user sees through ``traindx diagnose --log FILE``.

Shapes: a native (C++) traceback the excerpt cuts short under its title and rule lines; values
printed one per line with no name (a list of losses pasted under a question); a whole number
between a metric's name and its ``:`` (``Validation loss 6312:  0.1499``: an index, not the
value); a split's size printed as ``train 5446, val 616``; an accuracy word followed by the head
it scores (``acc class : 87.50``); step and data times printed with a glued unit (``iter_time:
8.7s``). Evidence: a log of accuracies only whose training accuracy rises while the validation
accuracy falls is overfitting. Each has a twin that must not change. Torch-free.
"""

import math

from conftest import diagnose_log_report, diagnose_log_text, report_symptom

_diagnose = diagnose_log_report
_symptom = report_symptom


def _facts(rep):
    return {f["fact"]: f["value"] for f in rep["facts"]}


def _train_lines(n=6, start=1):
    return [f"2021-08-26 14:{40 + k}:54 [INFO]      [TRAIN] Epoch=21/100, Step={start + 28 * k}/316, "
            f"loss={12.0 + 4.0 * math.sin(k):.6f}, lr=0.000125, time_each_step=1.9s" for k in range(n)]


# ------------------------------------------------------------------ a native traceback cut short
def test_a_cpp_traceback_cut_short_is_a_crash(tmp_path):
    text = "\n".join(_train_lines() + ["--------------------------------------",
                                       "C++ Traceback (most recent call last):",
                                       "--------------------------------------"])
    rep, out = _diagnose(tmp_path, text)
    assert "traceback" in out.splitlines()[0]
    assert _symptom(rep) == "out_of_scope"


def test_cpp_traceback_frames_and_its_error_summary_are_read(tmp_path):
    text = "\n".join(_train_lines() + [
        "C++ Traceback (most recent call last):",
        "--------------------------------------",
        "0   paddle::framework::SignalHandle(char const*, int)",
        "1   paddle::platform::GetCurrentTraceBackString[abi:cxx11]()",
        "----------------------",
        "Error Message Summary:",
        "----------------------",
        "FatalError: `Segmentation fault` is detected by the operating system."])
    rep, _ = _diagnose(tmp_path, text)
    assert _symptom(rep) == "out_of_scope"
    assert "Segmentation fault" in _facts(rep)["error_message"]


def test_rule_lines_without_a_traceback_stay_noise(tmp_path):
    # the twin: the same records between rule lines, no traceback: read as the noisy loss it is
    text = "\n".join(["=" * 30 + " normal training " + "=" * 30] + _train_lines(12) + ["-" * 38])
    rep, out = _diagnose(tmp_path, text)
    assert "traceback" not in out.splitlines()[0]
    assert _symptom(rep) != "out_of_scope"


# ------------------------------------------------------------------ values printed one per line
def test_values_one_per_line_are_read_as_the_loss(tmp_path):
    vals = [2.33, 46.46, 2.04, 72.33, 1.93, 15.25, 1.98, 1934.05, 1.67, 1.48, 2.31]
    rep, out = _diagnose(tmp_path, "\n".join(repr(v) for v in vals))
    assert "1 metric (loss)" in out.splitlines()[0]
    assert _symptom(rep) == "instability"


def test_a_falling_list_of_values_reads_as_falling(tmp_path):
    vals = [2.3 * math.exp(-0.15 * k) for k in range(20)]
    rep, _ = _diagnose(tmp_path, "\n".join(f"{v:.6f}" for v in vals))
    assert _facts(rep)["loss_trend"] == "decreasing"


def test_a_few_bare_numbers_are_no_log(tmp_path):
    res = diagnose_log_text(tmp_path, "12\n40\n7\n")
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1


def test_bare_numbers_beside_a_named_loss_are_left_out(tmp_path):
    lines = []
    for k in range(12):
        lines.append(f"step {k * 10} loss {3.0 * math.exp(-0.2 * k):.4f}")
        lines.append(str(1000 + 37 * k))          # a count printed on its own line
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    f = _facts(rep)
    assert f["current_loss"] < 1 and f["loss_trend"] == "decreasing"


# ------------------------------------------------------------------ an index between name and ':'
def test_an_index_before_the_colon_is_not_the_value(tmp_path):
    lines = []
    for e in range(11, 16):
        lines += [f"Epoch: {e}", f"Validation loss {526 * e + 526}:  {0.15 - 0.001 * (e - 11):.6f}  ",
                  f"Saving model and optimizer state at iteration {526 * e + 526} to run.pt",
                  f"Epoch {e} time 30.5 lr 0.001"]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    f = _facts(rep)
    assert abs(f["val_loss"] - 0.146) < 0.01
    assert f["val_loss_trend"] != "increasing"


def test_a_colon_after_a_value_still_reads_the_value(tmp_path):
    # the twin: "loss 2:" with no number after the colon keeps 2 as the loss
    lines = [f"iter {k}: loss {2.0 + 0.01 * (k % 3):.2f}: ok" for k in range(12)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert 1.9 < _facts(rep)["current_loss"] < 2.1


# ------------------------------------------------------------------ a split's size is no loss
def test_a_splits_size_is_not_its_loss(tmp_path):
    lines = ["Dataset size: train 5446, val 616, test 3929"]
    for e in range(1, 7):
        lines += [f"30/42 of epoch {e}/30 class : {1.5 * math.exp(-0.4 * e):.3f} - acc class : "
                  f"{60 + 6 * e:.2f} [bs:128]",
                  f"Accuracies on val: class : {80 + 2.5 * e:.2f}"]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    f = _facts(rep)
    assert "val_loss" not in f and "test_loss" not in f
    assert "accuracy" in out.splitlines()[0] and 0.9 <= f["val_accuracy"] <= 0.95


def test_split_words_with_decimal_values_are_still_losses(tmp_path):
    lines = [f"epoch {e} | tr {2.0 * math.exp(-0.2 * e):.3f} | va {2.1 * math.exp(-0.15 * e):.3f}"
             for e in range(1, 12)]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert "val_loss" in out.splitlines()[0] and _facts(rep)["loss_trend"] == "decreasing"


# ------------------------------------------------------------------ times printed with their unit
def test_step_and_data_times_with_a_glued_unit_are_read(tmp_path):
    lines = [f"2021-08-03 08:0{k}:36 | INFO | trainer:259 - epoch: 1/100, iter: {240 + 10 * k}/983, mem: 7746Mb, "
             f"iter_time: {1.2 + 0.1 * (k % 2):.3f}s, data_time: {0.9 + 0.1 * (k % 2):.3f}s, "
             f"total_loss: {5.8 - 0.1 * k:.1f}, lr: 2.384e-05" for k in range(8)]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    f = _facts(rep)
    assert f["data_time_fraction"] > 0.7
    assert "time per step" in out.splitlines()[0]


def test_a_duration_that_is_no_timing_is_still_left_out(tmp_path):
    lines = [f"epoch {e}: loss {2.0 * math.exp(-0.2 * e):.3f}, cost 14.0{e} s" for e in range(1, 12)]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert "time per step" not in out.splitlines()[0]
    assert _facts(rep)["loss_trend"] == "decreasing"


def test_a_workers_original_traceback_keeps_the_error_it_belongs_to(tmp_path):
    # the twin of the cut-short native traceback: a traceback printed inside the exception's message
    # (a DataLoader worker's) and cut short adds nothing: the error stays the KeyError
    text = "\n".join(_train_lines() + [
        "Traceback (most recent call last):",
        '  File "train.py", line 89, in train_net',
        "    for batch in train_loader:",
        "KeyError: Caught KeyError in DataLoader worker process 0.",
        "Original Traceback (most recent call last):",
        '  File "/opt/conda/lib/python3.8/site-packages/pandas/core/indexes/base.py", line 2898, in get_loc'])
    rep, _ = _diagnose(tmp_path, text)
    assert _symptom(rep) == "out_of_scope"
    assert "KeyError" in _facts(rep)["error_message"]


# ------------------------------------------------------------------ accuracies only: train up, val down
def _mxnet_epochs(train, val):
    lines = []
    for e, (t, v) in enumerate(zip(train, val), start=4):
        lines += [f"INFO:root:Epoch[{e}] Batch [4000]\tSpeed: 201.55 samples/sec\tTrain-accuracy={t - 0.01:.6f}",
                  f"INFO:root:Epoch[{e}] Train-accuracy={t:.6f}",
                  f"INFO:root:Epoch[{e}] Time cost=5821.412",
                  f"INFO:root:Epoch[{e}] Validation-accuracy={v:.6f}"]
    return "\n".join(lines)


def test_training_accuracy_rising_while_validation_falls_is_overfitting(tmp_path):
    rep, _ = _diagnose(tmp_path, _mxnet_epochs([0.549, 0.575, 0.601], [0.407, 0.395, 0.380]))
    assert _facts(rep)["val_accuracy_trend"] == "falling"
    assert _symptom(rep) == "overfitting"


def test_both_accuracies_rising_is_not_overfitting(tmp_path):
    rep, _ = _diagnose(tmp_path, _mxnet_epochs([0.549, 0.575, 0.601], [0.507, 0.530, 0.556]))
    assert _symptom(rep) != "overfitting"


# ------------------------------------------------------------------ an epoch glued to its number
def test_an_epoch_glued_to_its_number_places_the_excerpt_mid_run(tmp_path):
    lines = []
    for e in (15, 16):
        for k in range(6):
            a = 751 + 375 * k
            lines.append(f"[PC] 2020-11-11 16:5{k}:59,451 (trainer:486) INFO: {e}epoch:train:{a}-{a + 374}batch: "
                         f"iter_time=0.001, forward_time=0.005, loss={1.32 + 0.03 * math.sin(3 * k + e):.3f}, "
                         f"backward_time=0.005, lr_0=0.100, train_time=0.014")
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _facts(rep)["log_starts_mid_run"] is True
    assert _symptom(rep) == "plateau"


def test_an_escaped_carriage_return_before_epoch_is_no_epoch_number(tmp_path):
    lines = [f"[1,mpirank:0,algo-1]<stdout>:#015Epoch 0:  50% {k}/9 [00:00<00:00,  6.54it/s, "
             f"loss={2.3 - 0.01 * k:.2f}, v_num=0]" for k in range(1, 9)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _facts(rep).get("log_starts_mid_run") is not True
