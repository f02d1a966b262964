"""A garbage console log of long names is read in time linear in its size.

A name may end in a number glued to it (``loss0.692``: the loss is 0.692), so the console tokenizer asks,
inside a name, whether a run of digits starts that number. Asked at every digit, a line holding a
4,000-digit name cost about 50 ms of CPU (quadratic in the run), and a log repeats it
on every line: 400 such lines took about 17 s. The run is now tested once, at its start.
"""

import random
import time

from traindx.engine.errors import InputError
from traindx.probes.readers.console import read_console_text


def test_lines_of_long_digit_names_read_in_linear_time():
    rng = random.Random(0)      # every line a different name (a repeated line is read once, by its shape)
    text = "\n".join("w" + "".join(rng.choice("0123456789") for _ in range(3900 + i % 100))
                     + f" step {i} loss {2.0 - i / 400:.4f}" for i in range(400))
    t0 = time.process_time()
    try:
        log = read_console_text(text)
    except InputError:
        log = None
    spent = time.process_time() - t0
    # linear: about 4 s of CPU here (the other per-line patterns over 4 KB lines); the quadratic scan took
    # about 17 s on the same machine
    assert spent < 9.0, spent
    assert log is not None and len(log["loss"].points) > 0


def test_a_number_glued_to_its_name_still_ends_the_name():
    text = "\n".join(f"EPOCH[{e}/20] loss{1.0 - e / 40:.3f}-| conv1 {e}" for e in range(1, 21))
    log = read_console_text(text)
    assert [round(p.mean, 3) for p in log["loss"].points][:2] == [0.975, 0.95]


def test_lines_of_long_words_before_a_tuple_mark_read_in_linear_time():
    """``Loss:(a, b)/(1.0, 2.0)`` is split into pairs (console_tuples); a long word before a ``):(`` made that
    search start inside the word at every letter (0.56 s of CPU a 4,000-letter line). It starts where a word
    does now."""
    rng = random.Random(1)
    text = "\n".join("".join(rng.choice("abcdefgh") for _ in range(3900 + i % 100)) + f" x):( step {i} loss 0.5"
                     for i in range(200))
    t0 = time.process_time()
    try:
        read_console_text(text)
    except InputError:
        pass
    assert time.process_time() - t0 < 9.0


def test_a_tuple_of_names_beside_a_tuple_of_values_is_still_split():
    from traindx.probes.readers.console_tuples import split_named_tuples
    assert split_named_tuples("Epoch[3] Loss:(pitch, yaw)/(4.0, 2.4)") == "Epoch[3] Loss_pitch: 4.0, Loss_yaw: 2.4"
    assert split_named_tuples("train.loss:(a, b)/(1.5, 2)") == "train.loss_a: 1.5, train.loss_b: 2"
