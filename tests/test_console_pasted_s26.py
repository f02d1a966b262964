"""Shapes met in session 26's pasted tuning material: a paste that prints only how long each record
took (a duration, a words-per-second rate) is a speed question, not an unreadable log; and the
shell's ``Killed`` after a run is a crash handed on, not a curve to judge."""

import pytest
from conftest import diagnose_log_report, report_fact

from traindx.engine.errors import InputError
from traindx.probes.readers.console import read_console_text


def test_epoch_durations_alone_are_a_speed(tmp_path):
    """Lines that print only the time an epoch took: the user is asking about speed."""
    text = "\n".join(f"2023-03-01 10:{i:02d}:00 INFO: epoch {40 + i} finished, "
                     f"time taken {7.1 + 0.05 * (i % 3):.3f} sec" for i in range(10))
    log = read_console_text(text)
    assert log.series["step_time"].rows == 10
    rep = diagnose_log_report(tmp_path, text)[0]
    assert report_fact(rep, "speed_only") is True
    assert rep["symptom"]["id"] == "slow_training"


def test_a_headerless_row_timed_in_milliseconds_is_a_speed():
    text = "\n".join(f"{9000 + 10 * i} ({31.2 + 0.01 * i:.2f}%)   {512.3 + i:.3f} ms   3 h, 12 m, {i} s"
                     for i in range(6))
    log = read_console_text(text)
    assert log.series["step_time"].rows == 6
    assert log.series["step_time"].points[0].mean == pytest.approx(0.5123)   # milliseconds, in seconds


def test_words_per_second_is_a_speed():
    text = "\n".join(f"INFO:trainer:EPOCH 2 - PROGRESS: at {12.5 * i:.2f}% examples, {2100 * i} words/s, queue 1"
                     for i in range(1, 7))
    log = read_console_text(text)
    assert "step_time" in log.series


def test_a_number_of_seconds_with_no_word_of_time_stays_unread():
    """``15 s`` alone (an ETA's tail, a countdown) is no record's time: only a word such as
    ``took`` or ``time`` (console.duration_words), or milliseconds, make it one."""
    text = "\n".join(f"remaining 3 h {i} s" for i in range(6))
    with pytest.raises(InputError):
        read_console_text(text)


def test_the_seconds_of_an_elapsed_clock_are_no_duration():
    """``time 1h 38m 21s`` is how long the run has gone, not how long a record took."""
    text = "round 9    images 36.2k    time 2h 14m 9s    sec/round 41.3    cpumem 3.2    gpumem 7.5\n"
    with pytest.raises(InputError):
        read_console_text(text)


def test_a_duration_beside_a_loss_leaves_the_loss_reading_alone():
    text = "\n".join(f"epoch {i}: loss {2.0 * 0.9 ** i:.4f}, took {12.0 + i:.1f}s" for i in range(8))
    log = read_console_text(text)
    assert log.series["loss"].rows == 8
    assert "step_time" not in log.series


def test_the_shell_killing_the_run_hands_it_on(tmp_path):
    """The shell prints ``Killed`` when the process it ran got SIGKILL, most often from the
    out-of-memory killer: a crash, out of scope like a CUDA OOM, whatever the loss did before."""
    lines = [f"iter {100 + i}: total loss {0.61 - 0.002 * i:.4f}, time {1.7 + 0.01 * i:.2f}(sec)" for i in range(5)]
    text = "\n".join(lines + ["saving snapshot", "", "Killed", ""])
    log = read_console_text(text)
    assert [e["kind"] for e in log.errors] == ["other_error"]
    rep = diagnose_log_report(tmp_path, text)[0]
    assert rep["status"] == "out_of_scope"


def test_killed_inside_a_sentence_is_no_crash():
    lines = [f"iter {100 + i}: loss {0.61 - 0.002 * i:.4f}" for i in range(5)]
    text = "\n".join(lines + ["Killed 3 stale workers before resuming"])
    log = read_console_text(text)
    assert log.errors == []
