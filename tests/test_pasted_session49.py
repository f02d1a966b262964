"""Print shapes and readings of session 49 (pasted console output, issue 11): a table printed with
single spaces whose rows end in the time each record took, which no header name heads (fastai v1's
``1 1.513 1.041 0.507 (00:13)``); a pipeline's losses dict printed one a line (spaCy's
``{'ner': 11.27}``); and a validation loss that jumps once and then holds a level, which is a drift
and not a loss thrown back and forth. Each sample is written for this test (invented numbers) and
asserts what a user sees through ``traindx diagnose --log FILE`` or what the reader keeps; each has
a twin that must not change. Torch-free.
"""

import time

import pytest
from conftest import diagnose_log_report, report_fact, report_symptom

from traindx.engine.errors import InputError
from traindx.probes.readers import console_guess
from traindx.probes.readers.console import read_console_text


def _table(timed: bool, times=("(00:12)", "(00:09)")) -> str:
    rows = [(1, 1.402, 1.121, 0.431), (2, 1.215, 0.962, 0.377), (3, 1.044, 0.851, 0.318), (4, 0.931, 0.744, 0.261),
            (5, 0.842, 0.652, 0.214), (6, 0.761, 0.588, 0.183), (7, 0.703, 0.531, 0.162), (8, 0.655, 0.497, 0.148)]
    lines = ["Total time: 01:21", "epoch train_loss valid_loss error_rate"]
    for i, (e, a, b, c) in enumerate(rows):
        tail = f" {times[i % len(times)]}" if timed else ""
        lines.append(f"{e} {a} {b} {c}{tail}")
    return "\n".join(lines) + "\n"


def test_rows_ending_in_their_time_are_read():
    log = read_console_text(_table(timed=True))
    assert [round(p.mean, 3) for p in log["loss"].points][:3] == [1.402, 1.215, 1.044]
    assert [round(p.mean, 3) for p in log["val_loss"].points][-1] == 0.497
    untimed = read_console_text(_table(timed=False))
    assert [p.mean for p in untimed["loss"].points] == [p.mean for p in log["loss"].points]


def test_rows_ending_in_a_bare_clock_are_read_too():
    log = read_console_text(_table(timed=True, times=("00:12", "00:09")))
    assert len(log["loss"].points) == 8


def test_a_timed_table_is_diagnosed(tmp_path):
    rep, out = diagnose_log_report(tmp_path, _table(timed=True))
    assert "2 metrics (loss, val_loss) over 8 epochs" in out
    assert report_symptom(rep) == "healthy"


def test_a_row_ending_in_a_word_is_no_timed_row():
    """The extra cell must be a time: a word after the numbers leaves the row unread, as before."""
    text = _table(timed=True, times=("(fast)",))
    with pytest.raises(InputError):
        read_console_text(text)


def _spacy(values, key="ner", prefix="") -> str:
    return "Created blank 'en' model\n" + "".join(f"{prefix}{{'{key}': {v}}}\n" for v in values)


_FALLING = [12.41, 10.87, 11.02, 9.63, 8.12, 7.95, 6.04, 4.81, 3.22, 2.71, 1.93, 0.88, 0.41, 0.23, 0.09]


def test_a_losses_dict_per_update_is_the_training_loss(tmp_path):
    rep, out = diagnose_log_report(tmp_path, _spacy(_FALLING))
    assert "1 metric (loss)" in out
    assert "names in unknown words" not in out
    assert report_fact(rep, "initial_loss") == pytest.approx(12.41, rel=0.05)
    assert report_symptom(rep) == "healthy"
    assert any("'ner' read as the training loss" in c for c in rep["caveats"])


def test_a_losses_dict_with_its_label_and_several_components():
    text = "".join(f"Losses {{'tagger': {v / 2:.3f}, 'parser': {v:.3f}}}\n" for v in _FALLING)
    log = read_console_text(text)
    assert [round(p.mean, 3) for p in log["loss"].points][:2] == [round(_FALLING[0] / 2, 3), round(_FALLING[1] / 2, 3)]


def test_a_dict_of_other_names_is_not_a_pipeline():
    """A dict keyed by names that are no pipeline component stays unread (guessing needs a counter)."""
    with pytest.raises(InputError):
        read_console_text(_spacy(_FALLING, key="zorblat"))


def test_two_dicts_are_too_few():
    assert console_guess.pipe_losses(["{'ner': 3.2}", "{'ner': 2.9}"]) == {}


def test_the_dict_shape_is_linear_on_hostile_lines():
    lines = ["{'ner': " + "1" * 4096 + "x}", "{'ner': 1" + ", 'ner': 1" * 400 + "x", "Losses {'" + "a" * 4090,
             "{" + " " * 4096 + "x", "Losses " + "a" * 4096]
    t = time.perf_counter()
    for _ in range(20):
        console_guess.pipe_losses(lines)
    assert time.perf_counter() - t < 0.5


def _keras(val_losses) -> str:
    lines = []
    train = [1.31, 1.12, 0.71, 0.42, 0.29, 0.18, 0.12]
    for i, (tl, vl) in enumerate(zip(train, val_losses), start=1):
        lines.append(f"Epoch {i}/7")
        lines.append(f"5/5 [==============================] - 3s 700ms/step - loss: {tl:.4f} - accuracy: "
                     f"{0.45 + 0.07 * i:.4f} - val_loss: {vl:.4f} - val_accuracy: 0.5000")
    return "\n".join(lines) + "\n"


def test_a_validation_loss_that_jumps_once_and_holds_is_overfitting(tmp_path):
    """0.72, 0.71, then a jump to 3.9 and a level near 7: the median move is small, so the curve is
    no loss thrown back and forth (instability) but one that rose while training fell."""
    rep, _ = diagnose_log_report(tmp_path, _keras([0.7235, 0.7115, 3.8985, 7.1380, 7.7212, 6.9867, 7.3011]))
    assert report_fact(rep, "val_loss_swing") < 0.2
    assert report_symptom(rep) == "overfitting"


def test_a_validation_loss_thrown_back_and_forth_still_swings(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _keras([0.72, 2.91, 0.65, 3.40, 0.70, 3.12, 0.69]))
    assert report_fact(rep, "val_loss_swing") > 1.0
    assert report_symptom(rep) == "instability"


def test_a_jump_at_the_last_evaluation_is_no_level_yet(tmp_path):
    """A flat validation history that breaks at its last evaluation (0.150, 0.147, 0.149, 0.148, then
    0.712) has no level after the jump: it still reads as moves between evaluations, as before."""
    text = "".join(f"Epoch: {e}\nValidation loss {526 * e}:  {v}\n"
                   for e, v in zip(range(11, 16), (0.149928, 0.147172, 0.148571, 0.148049, 0.711720)))
    rep, _ = diagnose_log_report(tmp_path, text)
    assert report_fact(rep, "val_loss_swing") > 0.3
