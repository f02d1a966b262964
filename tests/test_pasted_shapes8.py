"""Console excerpts in the shapes of session 13's tuning material (pasted set fresh8 and the pasted
tuning sets before it): each sample is written for this test — synthetic numbers in the print
shapes of common tools — and asserts what a user sees through ``traindx diagnose --log FILE``.

Shapes: gradient boosting's evaluation lines (``[12]\\tvalidation_0-logloss:0.41``: the round in
brackets, numbered evaluation sets, the log loss); a logger's ``file.py:183`` prefix, whose line
number is no metric; a headerless row of numbers whose empty cells print as dashes; a name whose
values come in a bracketed group (``loss: [local: 0.70 | reduced: 0.69]``); an error rate (WER,
CER) as the complement of an accuracy; training records printed one per batch under one epoch
number. Evidence: a traceback the excerpt cuts short right after a NaN loss is the NaN's (not an
out-of-scope crash); a kernel's failed assertion at a GPU block and thread is a CUDA error. Each
has a twin that must not change. Torch-free.
"""

import json
import math
import random

from conftest import diagnose_log_report, diagnose_log_text, report_symptom

_diagnose = diagnose_log_report
_symptom = report_symptom


def _facts(rep):
    return {f["fact"]: f["value"] for f in rep["facts"]}


# ------------------------------------------------------------------ gradient boosting's eval lines
def test_gradient_boosting_evaluation_lines_are_read(tmp_path):
    lines = [f"[{k}]\ttrain-logloss:{0.69 * math.exp(-0.05 * k):.5f}\tvalid-logloss:{0.7 * math.exp(-0.04 * k):.5f}"
             for k in range(0, 40)]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert "loss" in out.splitlines()[0] and "val_loss" in out.splitlines()[0]
    f = _facts(rep)
    assert f["run_length_steps"] == 40 and f["loss_trend"] == "decreasing"


def test_numbered_evaluation_sets_are_validation_series(tmp_path):
    rnd = random.Random(2)
    lines = [f"[{6200 + k}]\tvalidation_0-rmse:{133.2 - 0.001 * k:.3f}\tvalidation_1-rmse:"
             f"{128.81 + rnd.uniform(-0.002, 0.002):.3f}" for k in range(12)]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert "val_loss" in out.splitlines()[0]
    f = _facts(rep)
    assert f["log_starts_mid_run"] is True and f["val_loss_trend"] == "flat"


# ------------------------------------------------------------------ a source location is no metric
def test_a_loggers_source_location_is_no_metric(tmp_path):
    lines = [f"[2024-09-11 17:52:{10 + k}] [INFO] [loss_scaler.py:183:update_scale] OVERFLOW! Rank 0 "
             f"Skipping step. Attempted loss scale: {2 ** (32 - k)}, reducing to {2 ** (31 - k)}" for k in range(6)]
    res = diagnose_log_text(tmp_path, "\n".join(lines))
    # 183 is the line of loss_scaler.py, not a loss of 183 that never moves: no loss is read, and the
    # overflows that leave the scale far above 1 are the scaler's warm-up (session 16, paste11)
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output[res.output.index("{"):])
    facts = {e["fact"]: e["value"] for e in rep["symptom"]["evidence"]}
    assert not {"current_loss", "initial_loss", "loss_trend"} & set(facts)
    assert rep["status"] == "healthy" and facts.get("loss_scale_warmup") is True
    assert all(c["confidence"] < 0.5 for c in rep["root_causes"])


def test_a_loss_beside_a_source_location_is_read(tmp_path):
    lines = [f"[2024-09-11 17:52:{10 + k}] [INFO] [engine.py:183:step] step={10 * k}, "
             f"loss={3.0 * math.exp(-0.2 * k):.4f}" for k in range(1, 12)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    f = _facts(rep)
    assert f["initial_loss"] < 3.0 and f["loss_trend"] == "decreasing"


# ------------------------------------------------------------------ headerless rows with empty cells
def test_headerless_nan_rows_with_dash_cells_are_explosion(tmp_path):
    lines = []
    for k in range(6):
        if k % 2 == 0:
            cells = ["0.00", "nan"] * 5 + ["0.00"] * 4 + ["nan"] + ["----"] * 6
        else:
            cells = ["----"] * 15 + ["nan"] * 6
        lines.append(f"2022-05-08 16:27:{k:02d},927 {17940 + k} " + " ".join(cells))
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _facts(rep)["loss_has_nonfinite"] is True
    assert _symptom(rep) == "explosion"


def test_headerless_finite_rows_with_dash_cells_stay_unread(tmp_path):
    lines = [f"2022-05-08 16:27:{k:02d},927 {17940 + k} " + " ".join(["0.50", "1.20", "----", "0.30"])
             for k in range(6)]
    res = diagnose_log_text(tmp_path, "\n".join(lines))
    assert res.exit_code == 2


# ------------------------------------------------------------------ a traceback cut short after NaN
_TRACE = ["Traceback (most recent call last):",
          '  File "/home/u/bin/t2t-trainer", line 82, in <module>',
          "    tf.app.run()",
          '  File "/home/u/lib/python2.7/site-packages/tensorflow/python/platform/app.py", line 48, in run',
          "    _sys.exit(main(_sys.argv[:1] + flags_passthrough))"]


def test_a_traceback_cut_short_after_a_nan_loss_is_explosion(tmp_path):
    lines = [f"INFO:tensorflow:loss = {1.9 - 0.01 * k:.4f}, step = {31000 + 100 * k} (182.2 sec)" for k in range(5)]
    lines += ["INFO:tensorflow:Saving checkpoints for 31622 into /tmp/model.ckpt.",
              "ERROR:tensorflow:Model diverged with loss = NaN."] + _TRACE
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "explosion"


def test_a_traceback_cut_short_after_a_finite_loss_stays_out_of_scope(tmp_path):
    lines = [f"INFO:tensorflow:loss = {1.9 - 0.01 * k:.4f}, step = {31000 + 100 * k} (182.2 sec)" for k in range(5)]
    lines += ["INFO:tensorflow:Saving checkpoints for 31622 into /tmp/model.ckpt."] + _TRACE
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "out_of_scope"


# ------------------------------------------------------------------ a kernel's failed assertion
def test_a_kernel_assertion_at_a_block_and_thread_is_out_of_scope(tmp_path):
    lines = ["      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size"]
    lines += [f"       5/10      2.11G      {1.8 - 0.01 * k:.3f}      1.735       1.61         20        640"
              for k in range(4)]
    lines += [f"C:/work\\c10/core/DynamicCast.h:78: block: [38,0,0], thread: [{97 + t},0,0] Assertion `false` failed."
              for t in range(6)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "out_of_scope"
    assert _facts(rep)["error_kind"] == "cuda_error"


# ------------------------------------------------------------------ a bracketed group of values
def _group_line(k: int, local: float, reduced: float) -> str:
    return (f"[02:40:{k:02d}.090134] Epoch: [3]  [{120 + 20 * k}/460]  eta: 0:03:07  lr: 0.000100  "
            f"predict_loss: [local: {local:.4f} | reduced: {reduced:.4f}]  time: 0.4870  data: 0.0002  max mem: 9145")


def test_a_loss_printed_as_a_group_of_values_is_read(tmp_path):
    rnd = random.Random(7)
    lines = [_group_line(k, 0.6990 + rnd.uniform(-0.012, 0.012), 0.6926 + rnd.uniform(-0.0005, 0.0005))
             for k in range(8)]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert "loss" in out.splitlines()[0]
    f = _facts(rep)
    # the value reduced over the ranks is the run's, not one rank's
    assert abs(f["current_loss"] - 0.6926) < 0.001
    assert _symptom(rep) == "not_learning"     # flat at ln 2: a uniform guess between two classes


def test_a_falling_group_of_values_is_healthy(tmp_path):
    lines = [_group_line(k, 0.69 * math.exp(-0.2 * k), 0.68 * math.exp(-0.2 * k)) for k in range(8)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _facts(rep)["loss_trend"] == "decreasing"


# ------------------------------------------------------------------ an error rate is 1 - accuracy
def _asr_line(epoch: int, loss: float, wer: float, cer: float) -> str:
    return (f"epoch: {epoch:8d} | lr: 2.000000 | loss: {loss:10.5f} | train-TER: {cer:.2f} | "
            f"train-WER: {wer:.2f} | dev-loss: {loss * 0.5:10.5f} | dev-WER: {wer:.2f}")


def test_an_error_rate_of_one_hundred_percent_beside_a_flat_loss_is_not_learning(tmp_path):
    rnd = random.Random(11)
    lines = [_asr_line(15 + k, 80.0 * rnd.uniform(0.98, 1.02), rnd.uniform(99.6, 100.2), rnd.uniform(92, 99))
             for k in range(6)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    f = _facts(rep)
    assert f["train_accuracy"] < 0.005 and f.get("accuracy_all_zero") is True
    assert _symptom(rep) == "not_learning"


def test_a_falling_error_rate_is_a_rising_accuracy(tmp_path):
    rnd = random.Random(11)
    lines = [_asr_line(15 + k, 80.0 * rnd.uniform(0.98, 1.02), 60.0 - 5 * k, 30.0 - 2 * k) for k in range(6)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    f = _facts(rep)
    assert abs(f["train_accuracy"] - 0.65) < 0.06 and f.get("accuracy_all_zero") is None


def test_an_error_rate_printed_as_a_fraction(tmp_path):
    lines = [f"Step: {182 + k} || Tr.Loss: {3.24 - 0.001 * k:.6f}  Val.Loss: {3.22 + 0.001 * k:.6f} || "
             f"Tr.CER: 1.000  Val.CER: 1.000 || Tr.WER: 1.000  Val.WER: 1.000" for k in range(5)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _facts(rep)["val_accuracy"] == 0.0
    assert _symptom(rep) == "not_learning"


# ------------------------------------------------------------------ records under one epoch number
def test_records_printed_per_batch_under_one_epoch_are_points_of_their_own(tmp_path):
    rnd = random.Random(4)
    lines = [f"Epoch 2 train Loc Loss: {0.0044 + rnd.uniform(-1e-4, 1e-4):.4f} Cls Loss: 0.0044 "
             f"Tot Loss: {0.0044 + rnd.uniform(-1e-4, 1e-4):.4f} Accu :{0.001 + rnd.uniform(0, 3e-4):.4f}"
             for _ in range(16)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    f = _facts(rep)
    assert f["run_length_steps"] > 1 and f["log_starts_mid_run"] is True
    assert _symptom(rep) == "not_learning"


def test_one_record_per_epoch_keeps_epochs_on_the_axis(tmp_path):
    lines = [f"Epoch {k} train Loss: {2.0 * math.exp(-0.2 * k):.4f} Accu :{0.2 + 0.05 * k:.4f}" for k in range(1, 12)]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    f = _facts(rep)
    assert "11 epochs" in out.splitlines()[0] and f["run_length_steps"] == 11
    assert _symptom(rep) == "healthy"


# ------------------------------------------------------------------ a C++ error line, an actor-critic
def test_a_collective_timeout_logged_by_the_cpp_side_is_out_of_scope(tmp_path):
    lines = [f"Epoch 0:   6%|██    | {32000 + 10 * k}/500150 [6:28:43<94:39:17,  1.37it/s, loss={2.6 - 0.001 * k:.3f}]"
             for k in range(5)]
    lines += [f"[E ProcessGroupNCCL.cpp:458] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL("
              f"SeqNum=96120, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 25625613 milliseconds before timing out."
              for r in (0, 7)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "out_of_scope"


def test_a_policy_loss_beside_a_value_loss_is_reinforcement_learning(tmp_path):
    lines = [f"[losses/total_loss: {1.6 + k:.2f} | losses/policy_loss: 0.1{k} | losses/value_loss: {7.6 + 3 * k:.2f}]:"
             f"  16%|██      | {1024 + 7 * k}/6400 [1:14:23<1:10:00,  8.2s/it]" for k in range(4)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "out_of_scope"


def test_a_policy_loss_alone_is_no_reinforcement_learning(tmp_path):
    lines = [f"step {100 * k} policy_loss: {2.0 * math.exp(-0.2 * k):.4f} lr: 0.001" for k in range(1, 12)]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) != "out_of_scope"


# ------------------------------------------------------------------ what evaluations alone say
def test_a_flat_high_accuracy_that_improves_at_each_evaluation_is_healthy(tmp_path):
    rnd = random.Random(9)
    lines = []
    for e in range(2):
        for b in range(100, 1000, 100):
            lines.append(f"INFO:root:Epoch[{e}] Batch [{b}]  Speed: 14762.29 samples/sec     "
                         f"Train-accuracy={0.95 + 0.01 * e + rnd.uniform(0, 0.008):.6f}")
        lines += [f"INFO:root:Epoch[{e}] Time cost=28.650",
                  f"INFO:root:Epoch[{e}] Validation-accuracy={0.958 + 0.006 * e:.6f}"]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "healthy"


def test_a_validation_loss_that_climbs_at_every_evaluation_is_rising(tmp_path):
    lines = []
    vals = [0.677, 0.6765, 0.6789, 0.6913, 0.7101, 0.7268, 0.7586]
    for k, v in enumerate(vals, 1):
        lines += [f"Epoch {k}/15", f"47808/47808 [==============================] - 300s - loss: {0.68 - 0.02 * k:.4f}"
                  f" - acc: {0.57 + 0.02 * k:.4f} - val_loss: {v:.4f} - val_acc: 0.5600"]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _facts(rep)["val_loss_trend"] == "increasing"
