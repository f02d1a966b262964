"""Print shapes read in session 18 (issue 13): a metric named before the step or epoch it was
taken at, an aside in parentheses inside a name, BasicSR's ``l_`` loss components. Each sample is
written for this test (invented numbers in the print shapes of common code) and asserts what a
user sees through ``traindx diagnose --log FILE`` or what the reader keeps; each has a twin that
must not change. Torch-free.
"""

import time

import pytest
from conftest import diagnose_log_report, report_symptom

from traindx.engine.errors import InputError
from traindx.probes.readers.console import read_console_text

_FALL = [2.301, 1.874, 1.522, 1.291, 1.103, 0.962, 0.871, 0.802, 0.761, 0.733]


def _loss(text: str):
    log = read_console_text(text)
    return [round(p.mean, 4) for p in log["loss"].points], log["loss"].column


# ------------------------------------------------------------- "loss at step N: V" (name, axis, value)
@pytest.mark.parametrize("fmt", [
    "Loss at step {x}: {v:.4f}",                    # a hand-written f-string
    "loss at iteration {x} is {v:.6f}",             # the Java listeners' sentence
    "[INFO] train loss after epoch {x} = {v:.4f}",
])
def test_a_value_named_before_its_axis_is_read_as_that_metric(fmt):
    text = "\n".join(fmt.format(x=10 * (i + 1), v=v) for i, v in enumerate(_FALL))
    values, column = _loss(text)
    assert values == _FALL
    assert "at" not in column.split() and "after" not in column.split()


def test_a_loss_named_before_its_iteration_that_blows_up_reads_as_an_explosion(tmp_path):
    values = ["2.297", "2.081", "1.934", "1.822", "1.790", "6.512", "88.41", "1874.2", "49713.9", "2.1e+06"]
    lines = [f"12:00:{i:02d}.113 [main] INFO  TrainListener - Loss at iteration {20 * i} is {v}"
             for i, v in enumerate(values)]
    rep, _ = diagnose_log_report(tmp_path, "\n".join(lines))
    assert report_symptom(rep) == "explosion"


def test_twin_an_axis_without_a_joiner_still_separates_the_name_from_the_value():
    # "step 20: loss 0.91" keeps its reading, and a line that saves "at step N" holds no metric
    text = "\n".join(f"Saving checkpoint at step {10 * (i + 1)}\nstep {10 * (i + 1)}: loss {v:.4f}"
                     for i, v in enumerate(_FALL))
    values, column = _loss(text)
    assert values == _FALL and column == "loss"


def test_twin_an_evaluation_at_a_step_keeps_its_metric_an_accuracy():
    text = "\n".join(f"step {10 * (i + 1)}: loss {v:.4f}\n"
                     f"Evaluating at step {10 * (i + 1)}: accuracy {0.3 + 0.05 * i:.3f}" for i, v in enumerate(_FALL))
    log = read_console_text(text)
    assert "accuracy" in log.roles or "val_accuracy" in log.roles
    assert [round(p.mean, 4) for p in log["loss"].points] == _FALL


# ------------------------------------------------------------- an aside of words inside a name
def test_the_keras_custom_loop_print_reads_its_training_loss():
    lines = []
    for i, v in enumerate(_FALL):
        lines.append(f"Training loss (for one batch) at step {200 * i}: {v:.4f}")
        lines.append(f"Seen so far: {(200 * i + 1) * 64} samples")
    values, column = _loss("\n".join(lines))
    assert values == _FALL and column == "Training loss"


def test_twin_one_word_in_parentheses_is_still_a_name_of_its_own():
    text = "\n".join(f"Loss (G): {v:.3f} Loss (D): {0.7 - 0.01 * i:.3f}" for i, v in enumerate(_FALL))
    with pytest.raises(InputError):
        read_console_text(text)


# ------------------------------------------------------------- BasicSR's l_ components
def _basicsr(terms: str) -> str:
    out = []
    for i, v in enumerate(_FALL):
        it = 1000 + 100 * i
        body = terms.format(a=v / 100, b=v, c=v / 50)
        out.append(f"2024-05-02 10:{i:02d}:13,221 INFO: [train..][epoch:  3, iter:  {it:,}, lr:(2.000e-04,)] "
                   f"[eta: 1 day, 2:03:04, time (data): 0.210 (0.002)] {body}")
    return "\n".join(out)


def test_basicsr_l_pix_is_the_loss():
    values, column = _loss(_basicsr("l_pix: {a:.4e} "))
    assert column == "l_pix" and values == [round(v / 100, 4) for v in _FALL]


def test_a_basicsr_gan_reads_its_first_printed_term():
    values, column = _loss(_basicsr("l_g_pix: {a:.4e} l_g_percep: {b:.4e} l_g_gan: {c:.4e} l_d_real: 4.1e-01 "
                                    "l_d_fake: 3.9e-01"))
    assert column == "l_g_pix"


def test_twin_l1_and_lr_are_no_l_prefixed_components():
    # BasicSR's l_ prefix does not reach l1 or lr. Since session 42 an l1 is the loss when nothing else says loss,
    # by its loss function's name as mse and mae are (paste42); lr never is
    text = "\n".join(f"epoch {i}: l1 {v:.4f} lr {0.001:.4f}" for i, v in enumerate(_FALL))
    values, column = _loss(text)
    assert column == "l1" and values == _FALL
    with pytest.raises(InputError):
        read_console_text("\n".join(f"epoch {i}: lr {v:.4f}" for i, v in enumerate(_FALL)))


# ------------------------------------------------------------- linear time on a long line
def test_a_long_line_of_joiners_and_parentheses_reads_in_linear_time():
    for unit in ("loss at step 1 ", "(a b) at ", "loss (for one " + " " * 200, "at " * 20 + "step 3: 0.5 "):
        line = (unit * (60_000 // len(unit) + 1))[:60_000]
        # this process's CPU time, not the wall clock: the bound is about the reader's work, and a machine
        # busy with other jobs (load 10 on 2 cores) stretched the wall time of a 2 s read past it. The
        # slowest unit reads in about 3.6 s of CPU on an idle machine and took 5.35 s in a CI run beside
        # another worker: 15 s keeps room for that, while a read quadratic in the line (what this guards
        # against) takes minutes at 60,000 characters
        t0 = time.process_time()
        try:
            read_console_text(line + "\n" + line)
        except InputError:
            pass
        assert time.process_time() - t0 < 15.0


# ------------------------------------------------------------- camelCase names
def test_camel_case_names_are_read_split_at_their_humps():
    text = "\n".join(f"[2019-04-02 10:{i:02d}:00] Pass: {i}, Batch: 300, TrainCost: {v:.4f}, ValidationCost: "
                     f"{v + 0.05 * i:.4f}" for i, v in enumerate(_FALL))
    log = read_console_text(text)
    assert log["loss"].column == "TrainCost" and log["val_loss"].column == "ValidationCost"
    assert [round(p.mean, 4) for p in log["loss"].points] == _FALL


def test_twin_a_camel_case_name_known_whole_keeps_its_reading():
    # "LogLoss" is the log loss whole, not a "log" and a "loss"
    text = "\n".join(f"Epoch[{i}] Train-LogLoss={v:.6f}" for i, v in enumerate(_FALL))
    values, column = _loss(text)
    assert column == "Train-LogLoss" and values == _FALL


# ------------------------------------------------------------- gradient-boosting evaluation lines
def test_lightgbm_evaluation_lines_read_the_training_and_validation_log_loss():
    text = "Training until validation scores don't improve for 20 rounds\n" + "\n".join(
        f"[{10 * (i + 1)}]\ttraining's binary_logloss: {v / 4:.6f}\tvalid_1's binary_logloss: {v / 4 + 0.01 * i:.6f}"
        for i, v in enumerate(_FALL))
    log = read_console_text(text)
    assert [round(p.mean, 6) for p in log["loss"].points] == [round(v / 4, 6) for v in _FALL]
    assert "val_loss" in log.roles


def test_catboost_learn_is_the_training_loss_and_best_is_no_point():
    text = "\n".join(f"{i}:\tlearn: {v / 4:.7f}\ttest: {v / 4 + 0.002 * i:.7f}\tbest: {v / 4:.7f} ({i})\t"
                     f"total: {60 + 3 * i}ms\tremaining: 5.{i}s" for i, v in enumerate(_FALL))
    log = read_console_text(text)
    assert log["loss"].column == "learn" and log["val_loss"].column == "test"
    assert [round(p.mean, 7) for p in log["loss"].points] == [round(v / 4, 7) for v in _FALL]
