"""Print shapes read in session 48 (pasted console output, issue 11): an epoch printed glued to its
word and, joined to it by a hyphen or underscore, the batch counted in it (``The train loss of
epoch12-batch-50:0.087``, a Python logger's prose line), and "of" binding a metric's name to the
axis printed after it (``Average loss of epoch 3: 0.52``). Each sample is written for this test
(invented numbers) and asserts what a user sees through ``traindx diagnose --log FILE`` or what
the reader keeps; each has a twin that must not change. Torch-free.
"""

import random
import time

import pytest
from conftest import diagnose_log_report, report_symptom

from traindx.engine.errors import InputError
from traindx.probes.readers.console import read_console_text

_PREFIX = "2021-03-04 10:{:02d}:{:02d},113 - root - INFO - "


def _vals(log, role):
    return [round(p.mean, 4) for p in log[role].points]


def _prose_log(train, val_loss):
    """A logger's prose lines: the training loss every 50 batches of each epoch, the validation loss
    after it."""
    lines, t = [], 0
    for ep, (losses, vl) in enumerate(zip(train, val_loss), start=21):
        lines.append(_PREFIX.format(t // 60, t % 60) + "Training one epoch...")
        for b, v in enumerate(losses):
            t += 7
            lines.append(_PREFIX.format(t // 60, t % 60) + f"The train loss of epoch{ep}-batch-{50 * b}:{v}")
        lines.append(_PREFIX.format(t // 60, t % 60) + f"The average loss of val loss:{vl}")
    return "\n".join(lines) + "\n"


_FLAT = [[0.4123, 0.3981, 0.4210, 0.4057], [0.4102, 0.4188, 0.3969, 0.4131], [0.4077, 0.4166, 0.4019, 0.4094],
         [0.4140, 0.3992, 0.4115, 0.4058]]
_VAL = [0.5211, 0.5198, 0.5224, 0.5203]


def test_a_prose_line_naming_the_loss_of_an_epoch_glued_to_its_number_is_read_as_the_training_loss():
    log = read_console_text(_prose_log(_FLAT, _VAL))
    assert _vals(log, "loss") == [v for ep in _FLAT for v in ep]
    assert _vals(log, "val_loss") == _VAL
    # the batch counted in each epoch goes on from the epoch before: one validation after every four records
    xs = [p.x for p in log["loss"].points]
    assert xs == sorted(xs) and xs[-1] > xs[0]
    assert len(log["val_loss"].points) == 4


def test_a_pasted_logger_whose_training_loss_stays_flat_for_epochs_reads_as_a_plateau(tmp_path):
    rep, out = diagnose_log_report(tmp_path, _prose_log(_FLAT, _VAL))
    assert "2 metrics (loss, val_loss)" in out
    assert report_symptom(rep) == "plateau"


def test_of_binds_a_name_to_the_epoch_printed_after_it():
    vals = [0.91, 0.74, 0.63, 0.55, 0.50]
    log = read_console_text("".join(f"Average loss of epoch {k}: {v}\n" for k, v in enumerate(vals, 1)))
    assert _vals(log, "loss") == vals
    assert log.x_label == "epoch" and [p.x for p in log["loss"].points] == [1, 2, 3, 4, 5]


# ------------------------------------------------- a header split by blanks over rows split by pipes
_ROWS = [(0.912, 61.5), (0.804, 66.2), (0.733, 70.4), (0.655, 73.9), (0.598, 76.8), (0.541, 79.0)]


def test_rows_set_apart_by_pipes_under_a_header_of_blank_separated_names_are_read():
    text = "loss      acc\n" + "".join(f"{a} | {b}\n" for a, b in _ROWS)
    log = read_console_text(text)
    assert _vals(log, "loss") == [a for a, _ in _ROWS]
    assert len(log["accuracy"].points) == len(_ROWS)


def test_a_clock_printed_after_the_values_is_a_cell_no_name_heads():
    text = "loss      acc\n" + "".join(f"{a} | {b} | 2 days, 12:0{k}:16.416641\n" for k, (a, b) in enumerate(_ROWS))
    log = read_console_text(text)
    assert _vals(log, "loss") == [a for a, _ in _ROWS]


# ------------------------------------------------------------------------------------ the twins
def test_a_checkpoint_file_named_after_its_epoch_is_no_epoch():
    text = "".join(f"saved model_epoch{k}.pth step {100 * k} loss {0.9 - 0.1 * k:.2f}\n" for k in range(1, 6))
    log = read_console_text(text)
    assert _vals(log, "loss") == [0.8, 0.7, 0.6, 0.5, 0.4]
    assert log.x_label == "step" and [p.x for p in log["loss"].points] == [100, 200, 300, 400, 500]


def test_the_end_of_an_epoch_line_still_reads_its_validation_loss():
    vals = [5.58, 5.31, 5.12, 5.02]
    text = "".join(f"| end of epoch {k:3d} | time: 25.31s | valid loss {v:5.2f} | valid ppl {2.718 ** v:8.2f}\n"
                   for k, v in enumerate(vals, 1))
    log = read_console_text(text)
    assert _vals(log, "val_loss") == vals
    assert "loss" not in log.series


def test_a_row_with_more_numbers_than_the_header_has_names_is_no_row():
    text = "loss      acc\n" + "".join(f"{a} | {b} | {k}\n" for k, (a, b) in enumerate(_ROWS))
    with pytest.raises(InputError):
        read_console_text(text)


def test_hostile_lines_of_glued_epochs_and_hyphens_read_in_linear_time():
    rng = random.Random(48)
    lines = []
    for i in range(200):
        words = "".join(rng.choice(("epoch1", "-batch-", "_it", "epoch", "-", "9", " of ")) for _ in range(700))
        lines.append(words[:4000] + f" step {i} loss 0.5")
    t0 = time.process_time()
    try:
        read_console_text("\n".join(lines))
    except InputError:
        pass
    assert time.process_time() - t0 < 9.0
