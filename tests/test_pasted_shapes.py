"""Console excerpts in the shapes people paste into threads: each is read (the right metric on
the right axis) and gets the symptom a reader of the excerpt would name.

Every sample is written for this test (synthetic numbers, the print shapes of common tools): a
quoted or bold excerpt, an excerpt that starts mid-run, a YOLO per-epoch table, darknet's
``N: loss, avg, rate`` lines, caffe's solver lines under a ``Testing net`` header, data-loading
time printed beside the step time, a loss clamped at the float floor, NaN gradient norms with and
without a loss, a mixed-precision scaler settling, and the shape classes flat-from-start
(not learning), fell-then-flat (plateau), swinging mid-run and rose-and-partly-recovered
(instability). Torch-free; through the command line as a user runs it.
"""
import json

import pytest
from click.testing import CliRunner

from traindx.engine.frontends.cli import main
from traindx.probes.readers.console import read_console_text
from conftest import report_symptom


_symptom = report_symptom


def _diagnose(tmp_path, text, name="run.out"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["diagnose", "--log", str(p), "--non-interactive", "--format", "json"])
    assert res.exit_code == 0, res.output
    out = res.output
    rep = json.loads(out[out.index("{"):])
    return rep, out


def _facts(rep):
    seen = {}
    for e in (rep.get("symptom") or {}).get("evidence", []):
        if isinstance(e, dict) and "fact" in e:
            seen[e["fact"]] = e.get("value")
    return seen


def _vals(log, role):
    return [p.mean for p in log[role].points]


# ------------------------------------------------------------------------------- reading
def test_a_quoted_keras_excerpt_from_epoch_144_is_read_as_mid_run(tmp_path):
    lines = []
    for e, (loss, val) in enumerate([(4.28, 5.343), (4.14, 5.347), (3.99, 5.349), (4.06, 5.348),
                                     (4.07, 5.335)], start=144):
        lines += [f"> Epoch {e}/150", ">", f"> 42/42 [==============================] - 169s 4s/step - "
                  f"loss: {loss:.4f} - val_loss: {val:.4f}", f"> Epoch {e:05d}: val_loss did not improve"]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert "2 metrics (loss, val_loss) over 5 epochs" in out
    assert _symptom(rep) == "plateau"
    assert "the log starts at epoch 144" in out


def test_bracketed_names_give_the_epoch_and_the_step():
    text = ("2019-08-07 02:59:37,013 - __main__ - INFO - [epoch]: 199, [batch]: 23900, [loss]: 4.9941\n"
            "2019-08-07 02:59:38,017 - __main__ - INFO - [epoch]: 199, [batch]: 24000, [loss]: 4.8506\n")
    log = read_console_text(text)
    assert [p.x for p in log["loss"].points] == [23900, 24000]
    assert log.first_epoch == 199


def test_darknet_lines_read_the_running_mean_loss(tmp_path):
    text = "\n".join(f"> {i}: {470 - i * 0.3:.6f}, {850 - i * 2:.6f} avg, 0.001000 rate, 20.45 seconds, "
                     f"{i * 64} images\n> Loaded: 0.000029 seconds" for i in range(90, 101))
    log = read_console_text(text)
    assert log.columns["loss"] == "avg loss"
    assert [p.x for p in log["loss"].points][:2] == [90, 91]
    assert _vals(log, "loss")[0] == pytest.approx(670.0)


def test_caffe_solver_lines_under_a_testing_header_are_on_the_step_axis(tmp_path):
    lines = ["I0816 11:40:31.063642 52129 solver.cpp:432] Iteration 8000, Testing net (#0)",
             "I0816 11:40:49.557504 52129 solver.cpp:488]     Test net output #0: accuracy = 0.746471",
             "I0816 11:40:49.557560 52129 solver.cpp:488]     Test net output #1: loss = 2.46194 (* 1 = 2.46194 loss)"]
    for k, v in enumerate([7.19, 7.64, 7.25, 6.83, 6.52, 7.16, 7.35, 7.02, 6.95, 7.21]):
        it = 8000 + 20 * k
        lines += [f"I0816 11:40:58.005064 52129 solver.cpp:232] Iteration {it}, loss = {v}",
                  f"I0816 11:40:58.005342 52129 solver.cpp:631] Iteration {it}, lr = 1e-05"]
    log = read_console_text("\n".join(lines))
    assert log.x_label == "step"
    assert [p.x for p in log["loss"].points][:2] == [8000, 8020]
    assert [p.x for p in log["val_accuracy"].points] == [8000]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "plateau"   # flat, 8000 iterations in, quiet: stopped improving


def test_a_line_printed_twice_by_two_loggers_counts_once():
    text = "\n".join(
        f"{prefix}Epoch: [1/120][{i}/3368] Data 0.002 (0.574) Batch 0.818 (3.887) Loss {10 + (i % 3):.4f} "
        f"Accuracy 0.3{i % 7}."
        for i in range(180, 260, 10) for prefix in ("[2021-11-22 22:33:16,523 INFO train.py line 338] ",
                                                     "INFO:main-logger:"))
    log = read_console_text(text)
    assert log["loss"].rows == 8
    assert [p.x for p in log["loss"].points][:2] == [180, 190]
    assert log["accuracy"].rows == 8   # "0.36." at the end of a sentence is still a number


def test_top1_names_are_the_accuracy():
    text = "\n".join(f"Epoch: [3][{i}/232] Time 0.2 (0.2) Data 0.01 (0.01) Loss {1 - i / 500:.4f} "
                     f"Prec@1 {50 + i / 10:.3f} (50.0) Prec@5 {80 + i / 20:.3f} (80.0)" for i in range(0, 110, 10))
    log = read_console_text(text)
    assert log.columns["accuracy"] == "Prec@1"
    assert _vals(log, "accuracy")[0] == pytest.approx(0.5)


# ------------------------------------------------------------------------------- YOLO tables
def test_a_yolo_table_with_nan_losses_is_an_explosion(tmp_path):
    text = (" Epoch   gpu_mem       box       obj       cls    labels  img_size\n"
            "      1/99     2.64G         nan       nan       nan         4       416: 100%|##########| 7/7 "
            "[00:15<00:00,  2.27s/it]\n"
            "               Class     Images     Labels          P          R     mAP@.5 mAP@.5:.95: 100%|"
            "##########| 1/1 [00:01<00:00,  1.30s/it]\n"
            "                 all         14          0          0          0          0          0\n")
    rep, out = _diagnose(tmp_path, text)
    assert "1 metric (loss)" in out
    assert _symptom(rep) == "explosion"


def test_an_ultralytics_table_sums_its_loss_components():
    rows = []
    for e, (b, c, d) in enumerate([(1.73, 3.34, 1.46), (1.63, 2.94, 1.41), (1.53, 2.54, 1.36)], start=1):
        rows += ["      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size",
                 f"      {e}/100      2.61G      {b}      {c}      {d}         32        640: 100%|#####| 50/50 "
                 "[00:10<00:00,  4.80it/s]",
                 "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): 100%|"
                 "#####| 4/4 [00:01<00:00,  3.20it/s]",
                 "                   all        128        929      0.112      0.123      0.051      0.021", ""]
    log = read_console_text("\n".join(rows))
    assert log.columns["loss"] == "box_loss + cls_loss + dfl_loss"
    assert _vals(log, "loss") == pytest.approx([6.53, 5.98, 5.43])
    assert [p.x for p in log["loss"].points] == [1, 2, 3]


# ------------------------------------------------------------------------------- evidence
def test_a_loss_clamped_at_the_float_floor_is_an_explosion(tmp_path):
    lines = []
    for it in range(26400, 27000, 100):
        lines += [f"I0718 06:13:29.755089 23375 solver.cpp:218] Iteration {it} (1.2 iter/s, 82.3s/100 iters), "
                  "loss = 87.3365",
                  "I0718 06:13:29.755340 23375 solver.cpp:237]     Train net output #1: softmax_loss = 87.3365 "
                  "(* 1 = 87.3365 loss)",
                  f"I0718 06:13:29.755373 23375 sgd_solver.cpp:105] Iteration {it}, lr = 1e-05"]
    rep, out = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "explosion"
    assert "smallest float" in out


def test_data_time_beside_the_step_time_is_a_slow_run(tmp_path):
    # the step time includes the data time (never below it): the share is data / time
    text = "\n".join(f"Epoch: [9][{i}/232] Time {t:.3f} (0.5) Data {d:.3f} (0.3) Loss {0.07 + (i % 3) / 100:.4f}"
                     for i, (t, d) in enumerate([(5.1, 5.0), (0.21, 0.001), (1.8, 1.7), (0.44, 0.33), (0.62, 0.52),
                                                 (0.2, 0.001), (0.36, 0.27), (0.9, 0.8)]))
    rep, out = _diagnose(tmp_path, text)
    assert _symptom(rep) == "slow_training"
    assert "of the step time" in out


def test_data_time_apart_from_the_update_time_is_their_sum():
    # updt_s leaves the data wait out (one data time exceeds it): the share is data / (data + updt)
    text = "\n".join(f"INFO ts/train.py:232 step:{s} loss:1.05 lr:1e-6 updt_s:0.300 data_s:{d}"
                     for s, d in zip(range(9, 14), ("3.000", "0.001", "0.000", "0.001", "0.000")))
    log = read_console_text(text)
    share, lines, apart = log.data_wait
    assert apart and lines == 5
    assert share == pytest.approx(3.002 / (3.002 + 1.5), rel=1e-3)


def test_nan_gradient_norms_without_a_loss_are_an_explosion(tmp_path):
    text = "\n".join(f" iteration     {i}/  250000 | elapsed time per iteration (ms): 4247.9 | learning rate: "
                     "2.999E-04 | loss scale: 1.0 | grad norm: nan | number of skipped iterations:   0 |"
                     for i in range(5426, 5429))
    rep, _ = _diagnose(tmp_path, text)
    assert _symptom(rep) == "explosion"


def test_a_mixed_precision_scaler_settling_is_not_an_explosion(tmp_path):
    text = "\n".join(f"2021-11-22 01:32:34,502 - mmocr - INFO - Epoch [1][{i}/62598]\tlr: 1.000e-03, time: 0.5, "
                     f"data_time: 0.01, loss_ce: {1.3 - k / 10:.4f}, loss: {1.9 - k / 10:.4f}, grad_norm: {g}"
                     for k, (i, g) in enumerate([(100, "nan"), (200, "3.9772"), (300, "3.51"), (400, "3.20"),
                                                 (500, "3.11")], start=1))
    rep, out = _diagnose(tmp_path, text)
    assert _symptom(rep) == "healthy"
    assert "loss scaler" in out


# ------------------------------------------------------------------------------- shapes
def test_fell_then_flat_is_a_plateau_and_flat_from_the_start_is_not_learning(tmp_path):
    def keras(losses):
        out = []
        for e, v in enumerate(losses, start=1):
            out += [f"Epoch {e}/8", f"1299/1298 [==============================] - 27s - loss: {v:.4f} - "
                                    f"acc: {0.7 + e / 100:.4f}"]
        return "\n".join(out)
    fell = keras([0.558, 0.526, 0.5175, 0.5166, 0.5141, 0.5119, 0.509, 0.510])
    rep, _ = _diagnose(tmp_path, fell, "fell.out")
    assert _symptom(rep) == "plateau"
    flat = keras([0.6931, 0.6932, 0.6930, 0.6931, 0.6933, 0.6931, 0.6930, 0.6932])
    rep, _ = _diagnose(tmp_path, flat, "flat.out")
    assert _symptom(rep) == "not_learning"


def test_a_loss_that_jumped_and_only_partly_recovered_is_instability(tmp_path):
    text = ("loss: 0.3925 - acc: 0.8709 - val_loss: 0.3650 - val_acc: 0.8786\n\n"
            "loss: 0.8816 - acc: 0.7350 - val_loss: 0.7405 - val_acc: 0.7701\n\n"
            "loss: 0.7743 - acc: 0.7613 - val_loss: 0.6743 - val_acc: 0.7912\n\n"
            "loss: 0.5779 - acc: 0.8223 - val_loss: 0.5234 - val_acc: 0.8355\n")
    rep, _ = _diagnose(tmp_path, text)
    assert _symptom(rep) == "instability"


def test_a_flat_loss_swinging_mid_run_is_instability_and_a_quiet_one_a_plateau(tmp_path):
    swing = [1.31, 1.01, 0.72, 0.78, 1.11, 1.35, 1.36, 1.14, 0.80, 1.25]
    text = "\n".join(f"epoch {e} train loss: {v:.4f}; train acc: 0.5000" for e, v in enumerate(swing, start=173))
    rep, _ = _diagnose(tmp_path, text, "swing.out")
    assert _symptom(rep) == "instability"
    quiet = [1.3112, 1.3043, 1.3187, 1.3121, 1.2968, 1.3094, 1.3031, 1.3166, 1.3109, 1.3052]
    text = "\n".join(f"epoch {e} train loss: {v:.4f}; train acc: 0.6000" for e, v in enumerate(quiet, start=173))
    rep, _ = _diagnose(tmp_path, text, "quiet.out")
    assert _symptom(rep) == "plateau"


def test_a_loss_that_settles_at_ln2_is_not_learning_even_after_a_big_fall(tmp_path):
    losses = [16.43, 5.16, 0.69327, 0.69327, 0.69319, 0.69314, 0.69310, 0.69302, 0.69291, 0.69270, 0.69212]
    text = "\n".join(f"Epoch {e:02d}: | Train Loss: {v:.5f} | Val Loss: 0.05330" for e, v in enumerate(losses, 1))
    rep, out = _diagnose(tmp_path, text)
    assert _symptom(rep) == "not_learning"
    # the same fall ending well below ln 2 is a converged run
    text = "\n".join(f"Epoch {e:02d}: | Train Loss: {v / 3:.5f} | Val Loss: 0.05330" for e, v in enumerate(losses, 1))
    rep, _ = _diagnose(tmp_path, text, "converged.out")
    assert _symptom(rep) == "healthy"


def test_data_and_step_times_alone_are_read_as_a_slow_run(tmp_path):
    text = "\n".join(f"load_data_time: {d}, train_step_time: {t}"
                     for d, t in [("0.0001", "0.665"), ("0.0001", "0.652"), ("19.6173", "0.686"),
                                  ("0.0002", "0.664"), ("0.0002", "0.639")])
    rep, out = _diagnose(tmp_path, text)
    assert _symptom(rep) == "slow_training"
    assert "data time plus the step time" in out


def test_a_rank_prefixed_traceback_cut_short_is_a_crash(tmp_path):
    text = "\n".join(["> [rank2]: Traceback (most recent call last):",
                      '[rank2]:   File "train.py", line 165, in <module>',
                      "[rank2]:     trainer.train()",
                      '[rank2]:   File "/site-packages/torch/_tensor.py", line 581, in backward',
                      "[rank2]:     torch.autograd.backward("])
    rep, _ = _diagnose(tmp_path, text)
    assert rep["status"] == "out_of_scope"


def test_a_cuda_kernel_assertion_is_a_crash_not_a_metric(tmp_path):
    text = "\n".join(f"/pytorch/aten/src/ATen/native/cuda/Loss.cu:115: operator(): block: [{b},0,0], thread: "
                     "[25,0,0] Assertion `input_val >= zero && input_val <= one` failed." for b in (1237, 1254))
    rep, out = _diagnose(tmp_path, text)
    assert rep["status"] == "out_of_scope"
    assert "no metrics" in out


def test_a_header_of_single_spaced_names_with_a_nan_row(tmp_path):
    text = ("epoch train loss valid loss accuracy_thresh f2_opt\n"
            "0 nan nan 0.997788 0.000000\n\n71.39% [6930/9707 3:56:27<1:34:45 nan]\n")
    log = read_console_text(text)
    assert log.columns["loss"] == "train loss" and log.columns["val_loss"] == "valid loss"
    rep, _ = _diagnose(tmp_path, text)
    assert _symptom(rep) == "explosion"


def test_an_accuracy_only_log_flat_at_zero_is_not_learning_and_rising_is_healthy(tmp_path):
    def mx(accs):
        return "\n".join(f"INFO:root:Epoch[0] Batch [{50 * (i + 1)}]\tSpeed: 129.39 samples/sec\t"
                         f"Train-accuracy={a:.6f}" for i, a in enumerate(accs))
    rep, _ = _diagnose(tmp_path, mx([0.002266, 0.0, 0.0, 0.0, 0.0, 0.0]), "flat.out")
    assert _symptom(rep) == "not_learning"
    rep, _ = _diagnose(tmp_path, mx([0.21, 0.30, 0.38, 0.45, 0.52, 0.56]), "rising.out")
    assert _symptom(rep) == "healthy"


def test_a_loss_moving_only_in_its_last_printed_digit_is_frozen(tmp_path):
    lines = []
    for e, v in enumerate(["2.3030", "2.3030", "2.3029", "2.3029", "2.3030", "2.3029", "2.3028", "2.3029"], 34):
        lines += [f"Epoch {e}/400", f"50000/50000 [==============================] - 455s - loss: {v} - "
                                    "acc: 0.0994 - val_loss: 2.3026 - val_acc: 0.1000"]
    rep, _ = _diagnose(tmp_path, "\n".join(lines))
    assert _symptom(rep) == "not_learning"


def test_a_short_excerpt_falling_at_every_record_is_learning(tmp_path):
    text = "\n".join(f"Epoch 0:  {6 * i}%|#  | {i}/18 [00:{10 + 3 * i}<01:33,  5.82s/it, loss={v}, v_num=193315]"
                     for i, v in enumerate(["10.473", "10.224", "10.047", "9.926", "9.847"], 1))
    rep, _ = _diagnose(tmp_path, text)
    assert _symptom(rep) == "healthy"


def test_a_flat_excerpt_at_ln10_is_not_learning_and_between_class_counts_a_plateau(tmp_path):
    wiggle = [0.0004, -0.0003, 0.0002, -0.0004, 0.0003, -0.0002, 0.0004, -0.0003, 0.0001, -0.0001]

    def log(level):
        return "\n".join(f"epoch {e} | train loss {level + w:.4f} | lr 0.01" for e, w in enumerate(wiggle, 40))
    rep, _ = _diagnose(tmp_path, log(2.3026), "chance.out")
    assert _symptom(rep) == "not_learning"
    rep, _ = _diagnose(tmp_path, log(1.9500), "level.out")
    assert _symptom(rep) == "plateau"
