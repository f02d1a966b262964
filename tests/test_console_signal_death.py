"""The shell's report of a run that died of a crash signal (``Segmentation fault (core dumped)``,
``Bus error``, ``Aborted (core dumped)``) ends the run like a traceback does: a crash handed on,
not a curve to judge (session 27; the bare ``Killed`` line is the same family)."""

from conftest import diagnose_log_report, report_symptom

from traindx.probes.readers.console import exception_message, read_console_text


def _run(last: str) -> str:
    rows = [f"Iteration {100 * i}, loss = {2.3 - 0.01 * i:.4f}" for i in range(1, 9)]
    return "\n".join(rows + [last]) + "\n"


def test_a_segfault_after_the_records_is_a_crash(tmp_path):
    text = _run("Segmentation fault (core dumped)")
    log = read_console_text(text)
    assert log.errors and "crash signal" in str(log.errors)
    rep = diagnose_log_report(tmp_path, text)[0]
    assert report_symptom(rep) == "out_of_scope"


def test_other_crash_signals_are_read_too():
    for line in ("Bus error (core dumped)", "Aborted (core dumped)", "Illegal instruction (core dumped)",
                 "Segmentation fault"):
        assert exception_message(line) is not None, line


def test_the_words_inside_a_sentence_are_no_crash():
    for line in ("Aborted", "I got a segmentation fault yesterday", "Floating point exception",
                 "loss: 0.5 Segmentation fault (core dumped) count 3"):
        assert exception_message(line) is None, line
