"""Step counts printed with thousands separators (issue 12, session 29).

Loggers that format the iteration with Python's ``{:,d}`` (BasicSR/mmsr-style ``iter:   1,200``, tqdm-like
``step 12,000``) print the step as ``1,200``. The console reader took the digits before the comma as the
step, so a run's steps went 25, 50, ..., 975, then 1, 1, ...: it read the last lines as a new run of one record
and diagnosed that record. It now reads the grouped number whole; a comma that separates two values
(``step 3,0.25``) is not a thousands separator and is read as before.
"""
from __future__ import annotations

from conftest import diagnose_log_report, report_fact


def _log():
    lines = []
    for k in range(1, 49):
        step = 250 * k
        loss = 2.0 * (0.93 ** k) + 0.4 + (0.01 if k % 2 else -0.01)
        lines.append(f"[train] step {step:>7,d} | lr 2.000e-04 | loss {loss:.4f}\n")
    return "".join(lines)


def test_grouped_step_counts_are_read_whole(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _log())
    assert report_fact(rep, "run_length_steps") == 250 * 48 - 250 + 1
    assert report_fact(rep, "loss_decrease_fraction") > 0.5


def test_a_comma_between_two_values_is_no_separator():
    from traindx.probes.readers.console_lines import _STEP
    assert _STEP.search("step 3,0.25").group(2) == "3"
    assert _STEP.search("iter 7,120,0.5").group(2) == "7"
    assert _STEP.search("iter:   1,000, lr:1e-4").group(2) == "1,000"
