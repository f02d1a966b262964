"""Session 38: a C/C++ trainer built with Microsoft's older C runtime prints a NaN loss as ``1.#QNAN0``
or ``-1.#IND00`` and an infinite one as ``1.#INF00`` (printf's ``%f``). Pasted, such a log is a run
whose loss went non-finite - an explosion - not a healthy run whose last values are unreadable. A
message that the training criterion is not a number is a NaN report too. The logs are written for
this test. Torch-free.
"""

import math

import pytest

from conftest import diagnose_log_report, report_fact
from traindx.probes.readers.console import read_console_text


def _log(bad: str, rows=8) -> str:
    out = []
    for i in range(1, rows + 1):
        loss = f"{2.3 - 0.15 * i:.8f}" if i < rows - 1 else bad
        out.append(f"Epoch[1 of 3]-Minibatch[{(i - 1) * 100 + 1:4d}-{i * 100:4d}]: samples = 100; "
                   f"train_loss = {loss}; err = 0.{40 - i:02d}; time = 1.2s")
    return "\n".join(out)


@pytest.mark.parametrize("bad", ["1.#QNAN000", "-1.#IND00", "1.#INF00"])
def test_windows_non_finite_loss_is_read(bad):
    log = read_console_text(_log(bad))
    ys = [y for _x, y in log.series["loss"].head]
    assert ys[0] == pytest.approx(2.15) and not math.isfinite(ys[-1])


def test_the_report_is_an_explosion(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _log("1.#QNAN0"))
    assert rep["symptom"]["id"] == "explosion"
    assert report_fact(rep, "loss_has_nonfinite") is True


def test_a_criterion_that_is_not_a_number_is_a_nan_report():
    text = "\n".join([f"step {i} loss {1.0 - 0.05 * i:.3f}" for i in range(1, 9)]
                     + ["EXCEPTION occurred: The training criterion is not a number (NAN). Stop"])
    log = read_console_text(text)
    assert log.nan_warnings >= 1
