"""The console-log reader: printed metrics in the shapes people print, read by structure.

Every sample here is written for this test (small, synthetic): each print style is parsed into
the roles the curve analysis needs, with the right axis; noise, restarts, tracebacks and NaN
warnings are handled; a file with nothing to read fails in one line naming it.
"""
import math

import pytest

from traindx.engine.errors import InputError
from traindx.probes.readers.console import read_console, read_console_text
from traindx.probes.readers.logs import analyze_log, read_log


def _vals(log, role):
    return [p.mean for p in log[role].points]


def _xs(log, role):
    return [p.x for p in log[role].points]


def _write(tmp_path, text, name="run.out"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


# ---------------------------------------------------------------------------- print styles
def test_key_value_with_step_and_scientific_notation():
    text = "\n".join(f"step {i:4d} loss {3.0 / (i + 1):.4e} grad_norm {1.5e-1:.3e}" for i in range(0, 50, 5))
    log = read_console_text(text)
    assert log.x_label == "step"
    assert _xs(log, "loss")[:3] == [0, 5, 10]
    assert _vals(log, "loss")[0] == pytest.approx(3.0, rel=1e-3)
    assert "grad_norm" in log


def test_key_colon_and_key_equals_with_splits():
    text = "\n".join(f"epoch {e}: train_loss={1 / e:.3f} val_loss={1.2 / e:.3f} val_acc={0.5 + e / 100:.2f}"
                     for e in range(1, 6))
    log = read_console_text(text)
    assert log.x_label == "epoch"
    assert _vals(log, "loss") == pytest.approx([1 / e for e in range(1, 6)], abs=1e-3)
    assert _vals(log, "val_accuracy")[-1] == pytest.approx(0.55)
    assert log.epochs == 5


def test_pipe_table_and_percentages():
    text = "\n".join(f"epoch {e:3d} | train loss {2 - e * 0.1:.3f} | valid acc {40 + e:.1f}% | lr 1.0e-03 |"
                     for e in range(1, 8))
    log = read_console_text(text)
    assert _vals(log, "val_accuracy")[0] == pytest.approx(0.41)
    assert _vals(log, "lr")[0] == pytest.approx(1e-3)


def test_rich_box_table_with_a_heavy_header_bar():
    """rich draws its header with heavy bars (``┃ epoch ┃ train_loss ┃``) and its rows with light
    ones (``│ 1 │ 2.8324 │``): every row is read, under the header's names."""
    rows = [(e, 2.8324 - 0.0004 * e, 2.8185 - 0.0004 * e) for e in range(1, 13)]
    text = "\n".join(
        ["┏━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┓",
         "┃ epoch ┃ train_loss ┃ val_loss ┃ lr       ┃",
         "┡━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━┩"]
        + [f"│ {e:<5d} │ {t:<10.4f} │ {v:<8.4f} │ 1.00e-06 │" for e, t, v in rows]
        + ["└───────┴────────────┴──────────┴──────────┘"])
    log = read_console_text(text)
    assert log.x_label == "epoch" and log.epochs == 12
    assert _vals(log, "loss") == pytest.approx([t for _, t, _ in rows], abs=1e-4)
    assert _vals(log, "val_loss")[-1] == pytest.approx(rows[-1][2], abs=1e-4)
    assert _vals(log, "lr")[0] == pytest.approx(1e-6)


def test_keras_progress_lines_take_the_epoch_from_the_line_before():
    lines = []
    for e in range(1, 5):
        lines.append(f"Epoch {e}/4")
        lines.append(f"100/100 [==============================] - 1s 9ms/step - loss: {1 / e:.4f} "
                     f"- accuracy: {0.5 + e / 10:.4f} - val_loss: {1.1 / e:.4f} - val_accuracy: {0.45 + e / 10:.4f}")
    log = read_console_text("\n".join(lines))
    assert log.x_label == "step"
    assert _xs(log, "loss") == [100, 200, 300, 400]
    assert _vals(log, "val_loss")[-1] == pytest.approx(1.1 / 4, abs=1e-4)
    assert _vals(log, "accuracy")[0] == pytest.approx(0.6)


def test_tqdm_bar_redrawn_with_carriage_returns():
    out = []
    for e in range(1, 4):
        bar = "".join(f"\rEpoch {e}/3: {i * 10}%|##   | {i}/10 [00:0{i}<00:01, 9.1it/s, loss={2.0 / (e * 10 + i):.4f}]"
                      for i in range(1, 11))
        out.append(bar + f"\nEpoch {e}: train loss {2.0 / (e * 10 + 5):.4f}, val loss {2.1 / (e * 10):.4f}")
    log = read_console_text("\n".join(out))
    assert log.get("loss").rows >= 30          # every redraw with a new value
    assert _xs(log, "val_loss") == [10, 20, 30]  # validation at the end of each epoch
    assert log.lines == 6                        # carriage returns are not new lines


def test_lightning_postfix_carries_val_loss_until_it_changes():
    lines = []
    for e in range(3):
        for i in range(1, 5):
            lines.append(f"Epoch {e}: {i * 25}%|████| {i}/4 [00:01<00:00, 3.1it/s, v_num=0, "
                         f"train_loss={1 - e / 10 - i / 100:.3f}"
                         + (f", val_loss={0.9 - e / 10:.3f}]" if e else "]"))
    log = read_console_text("\r".join(lines))
    assert log.get("val_loss").rows == 2  # two validation values, each redrawn 4 times
    assert log.get("loss").rows == 12


def test_hf_trainer_dicts_and_the_final_summary():
    lines = [f"{{'loss': {2 - i * 0.1:.4f}, 'grad_norm': {1.5 - i * 0.05}, "
             f"'learning_rate': 5e-05, 'epoch': {i / 4:.2f}}}"
             for i in range(1, 9)]
    lines.insert(4, "{'eval_loss': 1.70, 'eval_accuracy': 0.61, 'eval_runtime': 0.5, 'epoch': 1.0}")
    lines.append("{'eval_loss': 1.40, 'eval_accuracy': 0.70, 'eval_runtime': 0.5, 'epoch': 2.0}")
    log = read_console_text("\n".join(lines))
    assert log.x_label == "epoch"
    assert _vals(log, "val_loss") == pytest.approx([1.70, 1.40])
    assert _vals(log, "lr")[0] == pytest.approx(5e-5)


def test_bracket_epoch_step_and_validation_line():
    lines = []
    for e in range(1, 4):
        for s in (100, 200, 300):
            lines.append(f"Epoch [{e}/3], Step [{s}/300], Loss: {1 / (e * s):.5f}")
        lines.append(f"Test Accuracy of the model: {80 + e} %  (loss {0.5 / e:.3f})")
    log = read_console_text("\n".join(lines))
    assert _xs(log, "loss")[:4] == [100, 200, 300, 400]
    assert "val_accuracy" in log and _vals(log, "val_accuracy")[0] == pytest.approx(0.81)
    assert _vals(log, "val_loss")[0] == pytest.approx(0.5)


def test_mmengine_and_fairseq_and_caffe_and_detectron_shapes():
    mm = "\n".join(f"2024/01/01 10:00:0{i} - mmengine - INFO - Epoch(train) [1][{i * 10}/50]  lr: 1.0000e-02  "
                   f"eta: 0:00:0{i}  time: 0.1  loss: {2 - i / 10:.4f}" for i in range(1, 6))
    log = read_console_text(mm
                            + "\n2024/01/01 10:00:09 - mmengine - INFO - Epoch(val) [1][8/8]  "
                              "accuracy/top1: 55.0  loss: 1.9")
    assert _xs(log, "loss") == [10, 20, 30, 40, 50]
    assert _vals(log, "lr")[0] == pytest.approx(0.01)
    assert "val_loss" in log
    fs = "\n".join(f"| epoch {e:03d}:  {i} / 3 loss={3 - e / 2 - i / 10:.3f} (3.1), ppl=9.0, lr=0.0005, "
                   f"gnorm=1.{i}, num_updates={(e - 1) * 3 + i}"
                   for e in (1, 2) for i in (1, 2, 3))
    log = read_console_text(fs + "\n| epoch 002 | valid on 'valid' subset | valid loss 2.1 | valid ppl 4.2")
    assert _xs(log, "loss") == [1, 2, 3, 4, 5, 6]          # num_updates is the global step
    assert _vals(log, "val_loss") == [2.1]                   # a loss beats a perplexity
    caffe = "\n".join(f"I0101 10:00:0{i}.123  4242 solver.cpp:228] Iteration {i * 100}, loss = {3 - i / 5:.3f}"
                      for i in range(1, 6))
    log = read_console_text(caffe + "\nI0101 10:01:00.000  4242 solver.cpp:404]     Test net output #0: accuracy = 0.3")
    assert _xs(log, "loss") == [100, 200, 300, 400, 500] and _vals(log, "val_accuracy") == [0.3]
    d2 = "\n".join(f"[01/01 10:00:0{i} d2.utils.events]:  eta: 0:10:00  iter: {i * 20 - 1}  "
                   f"total_loss: {2 - i / 9:.3f}  "
                   f"loss_cls: 0.5  time: 0.3  lr: 0.0002  max_mem: 2048M" for i in range(1, 6))
    log = read_console_text(d2)
    assert _xs(log, "loss") == [19, 39, 59, 79, 99] and log.columns["loss"] == "total_loss"


def test_python_logging_prefix_and_header_table():
    text = "\n".join(f"2024-05-01 12:00:{i:02d},123 - INFO - iter {i * 10}: loss {1 - i / 20:.3f}, lr 0.001"
                     for i in range(1, 6))
    log = read_console_text(text)
    assert _xs(log, "loss") == [10, 20, 30, 40, 50]        # the time stamp is not a number to read
    table = "some banner line\nepoch,train_loss,val_loss,val_acc\n" + "\n".join(
        f"{e},{1 / e:.3f},{1.1 / e:.3f},{0.4 + e / 20:.3f}" for e in range(1, 6))
    log = read_console_text(table)
    assert log.x_label == "epoch" and _vals(log, "val_loss")[0] == pytest.approx(1.1)
    ws = "epoch  train_loss  valid_loss  accuracy  time\n" + "\n".join(
        f"{e}      {1 / (e + 1):.4f}      {1.2 / (e + 1):.4f}      {0.5 + e / 20:.4f}    00:0{e}" for e in range(5))
    log = read_console_text(ws)
    assert _vals(log, "loss")[0] == pytest.approx(1.0) and "val_loss" in log


def test_number_before_its_name_and_nan_inf():
    text = "\n".join(f" {i}: {5 - i / 10:.3f}, {5 - i / 20:.3f} avg loss, 0.001000 rate, 2.1 seconds"
                     for i in range(1, 6))
    log = read_console_text(text)
    assert _vals(log, "loss")[0] == pytest.approx(4.95)
    text = "step 1 loss 2.3\nstep 2 loss 5.1e+03\nstep 3 loss inf\nstep 4 loss nan\nstep 5 loss NaN"
    log = read_console_text(text)
    assert log["loss"].nonfinite == 3 and log["loss"].max == pytest.approx(5100)


# ---------------------------------------------------------------------------- noise, restarts
def test_interleaved_noise_is_ignored(tmp_path):
    noise = ["/usr/lib/python3/site-packages/torch/utils/data.py:42: UserWarning: 4 workers is more than 2 cores",
             "  warnings.warn(", "Downloading data from https://x.org/a.tar.gz (170 MB) 12%",
             "Saving checkpoint to ckpt_3.pt",
             "GPU available: True (cuda), used: True",
             "loaded config: {'lr': 0.1, 'seed': 42, 'batch_size': 64, 'epochs': 9}"]
    lines = []
    for e in range(1, 10):
        lines.append(noise[e % len(noise)])
        lines.append(f"epoch {e} loss {1 / e:.4f} val_loss {1.2 / e:.4f}")
    log = read_console(_write(tmp_path, "\n".join(lines)))
    assert _xs(log, "loss") == list(range(1, 10))
    assert log.get("lr") is None  # the config dump is not a record of the run
    assert not log.restarts


def test_restart_is_found_with_its_line(tmp_path):
    lines = [f"epoch {e} loss {2 / e:.3f}" for e in range(1, 7)] + ["resuming from checkpoint"] + \
            [f"epoch {e} loss {1.5 / e:.3f}" for e in range(4, 11)]
    log = read_console(_write(tmp_path, "\n".join(lines)))
    assert log.restart_lines == [8]
    assert "1 restart at line 8" in log.describe()
    assert _xs(log, "loss") == [1, 2, 3] + list(range(4, 11))


def test_describe_line():
    text = "\n".join(f"epoch {e} loss {1 / e:.3f} val_loss {1.1 / e:.3f} lr 0.01" for e in range(1, 13))
    log = read_console_text(text, name="run.out")
    assert log.describe() == "Read run.out: 12 lines, 3 metrics (loss, val_loss, lr) over 12 epochs."


# ---------------------------------------------------------------------------- tracebacks
def _facts(findings):
    return {f.fact: f.value for f in findings}


@pytest.mark.parametrize("last, kind", [
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", "cuda_oom"),
    ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x800 and 512x64)", "shape_error"),
    ("RuntimeError: stack expects each tensor to be equal size, but got [3, 32] at entry 0 and [3, 30] at entry 1 in "
     "collate", "dataloader_error"),
])
def test_traceback_is_evidence_for_scope(tmp_path, last, kind):
    text = ("epoch 1 loss 2.30\nepoch 2 loss 2.10\nTraceback (most recent call last):\n"
            '  File "train.py", line 80, in <module>\n    out = model(x)\n' + last + "\n")
    path = _write(tmp_path, text)
    findings, _ = analyze_log(path)
    facts = _facts(findings)
    assert facts["error_kind"] == kind
    err = [f for f in findings if f.fact == "error_kind"][0]
    assert err.source.endswith("line 3")


def test_crash_before_any_metric_is_still_read(tmp_path):
    text = "Traceback (most recent call last):\n  File \"t.py\", line 3\nRuntimeError: CUDA out of memory.\n"
    findings, _ = analyze_log(_write(tmp_path, text))
    assert _facts(findings)["error_kind"] == "cuda_oom"


def test_nan_warning_is_explosion_evidence(tmp_path):
    text = "\n".join(f"step {i} loss {2 - i / 100:.3f}" for i in range(1, 40)) + \
        "\nWARNING: NaN or Inf found in the loss at step 40, skipping batch\nstep 41 loss 1.58\n"
    findings, _ = analyze_log(_write(tmp_path, text))
    facts = _facts(findings)
    assert facts["loss_has_nonfinite"] is True
    assert facts["nan_first_step"] == 39
    text = "\n".join(f"step {i} loss {2 - i / 100:.3f}" for i in range(1, 40)) + \
        "\nGradient overflow. Skipping step, loss scaler 0 reducing loss scale to 32768.0\n"
    findings, _ = analyze_log(_write(tmp_path, text, "amp.out"))
    assert _facts(findings)["loss_has_nonfinite"] is False  # AMP's own skip is not an explosion


# ---------------------------------------------------------------------------- failure and dispatch
def test_nothing_to_read_is_one_line_with_file_and_lines(tmp_path):
    path = _write(tmp_path, "hello\nthis run printed 3 things\nnone of them metrics: 42\n", "notes.out")
    with pytest.raises(InputError) as exc:
        read_log(path)
    msg = str(exc.value)
    assert "notes.out" in msg and "\n" not in msg and "3 line(s)" in msg and "lines 1-3" in msg


def test_cli_reads_console_logs_and_exits_2_on_nothing(tmp_path):
    from click.testing import CliRunner

    from traindx.engine.frontends.cli import main
    good = _write(tmp_path, "\n".join(f"Epoch {e}/10 - loss: {2.3:.4f} - val_acc: 0.1000" for e in range(1, 11)))
    res = CliRunner().invoke(main, ["diagnose", "--log", good, "--non-interactive", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert "Read run.out: 10 lines, 2 metrics (loss, val_accuracy) over 10 epochs." in res.output
    bad = _write(tmp_path, "nothing here\n", "empty.out")
    res = CliRunner().invoke(main, ["diagnose", "--log", bad, "--non-interactive"])
    assert res.exit_code == 2
    assert "empty.out" in res.output and "Traceback" not in res.output


def test_csv_and_jsonl_still_go_to_their_readers(tmp_path):
    p = _write(tmp_path, "step,loss\n1,0.5\n2,0.4\n", "m.csv")
    assert read_log(p).format == "csv"
    p = _write(tmp_path, '{"step": 1, "loss": 0.5}\n{"step": 2, "loss": 0.4}\n', "m.jsonl")
    assert read_log(p).format == "jsonl"
    p = _write(tmp_path, '{"step": 1, "loss": 0.5}\nWarning: slow\n{"step": 2, "loss": 0.4}\n', "m.out")
    log = read_log(p)
    assert log.format == "console" and log["loss"].rows == 2


def test_bounded_memory_on_many_names_and_long_lines(tmp_path):
    names = " ".join(f"m{i}_loss {i}.0" for i in range(300))
    lines = [f"step {s} loss 1.0 {names}" for s in range(3)] + ["x" * 100000 + " loss 2"]
    log = read_console(_write(tmp_path, "\n".join(lines)))
    assert log["loss"].rows >= 3
    assert math.isfinite(log["loss"].points[0].mean)


def test_a_percent_sign_on_a_loss_is_not_a_fraction(tmp_path):
    log = read_console(_write(tmp_path, "Epoch: 001/010 | Train: 10.000% | Loss: 2.520%\n"
                                        "Epoch: 010/010 | Train: 10.000% | Loss: 2.303%\n"))
    assert _vals(log, "loss") == pytest.approx([2.52, 2.303])


def test_a_counter_too_long_for_a_float_is_not_a_step(tmp_path):
    """Found by the fuzz run: a 400-digit step ended in OverflowError (a traceback) and a 5,000-digit
    epoch would pass Python's int-parsing limit. Such a number is no counter: its line is skipped,
    the others are read."""
    huge_step, huge_epoch = "9" * 400, "7" * 5000
    log = read_console(_write(tmp_path, f"step 1 loss 2.30\nstep {huge_step} loss 2.10\nepoch {huge_epoch}\n"
                                        "step 3 loss 1.90\nstep 4 loss 1.70\n"))
    assert 2.30 in _vals(log, "loss") and 1.70 in _vals(log, "loss")
    assert all(math.isfinite(x) for x in _xs(log, "loss"))
    analyze_log(str(tmp_path / "run.out"))          # the whole path: findings, no traceback


def test_the_counter_digit_limit_is_a_parameter(tmp_path):
    """limits.max_counter_digits decides which printed integers count as steps: with the shipped 15
    a five-digit step is read as one; with 3 it is no counter, and the curve never reaches it."""
    from traindx.engine.parameters import shipped
    path = _write(tmp_path, "step 100 loss 2.30\nstep 200 loss 2.10\nstep 300 loss 1.90\nstep 12345 loss 1.50\n")
    assert 12345 in _xs(read_console(path), "loss")
    small = {**shipped(), "limits.max_counter_digits": 3}
    log = read_console(path, params=small)
    assert max(_xs(log, "loss")) == 300


def test_a_counter_too_long_is_no_step_on_any_line_of_its_shape(tmp_path):
    """Lines of one shape are read by a remembered plan after the first: a step too long to count
    (limits.max_counter_digits) is no step on the first line and none on the lines after it."""
    from traindx.engine.parameters import shipped
    small = {**shipped(), "limits.max_counter_digits": 3}
    path = _write(tmp_path, "step 100 loss 2.30\nstep 200 loss 2.10\n"
                            "step 12345 loss 1.50\nstep 12346 loss 1.40\nstep 12347 loss 1.30\n")
    assert max(_xs(read_console(path, params=small), "loss")) < 1000
