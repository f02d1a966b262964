"""Session 38: a loss printed inside a wrapper after its name - in angle brackets (``Loss: <0.81>``,
as an in-database trainer's INFO lines print it) or behind a typed tensor's dtype and shape
(``Loss: Tensor Float []  0.34``, a Haskell tensor's show) - is read as the loss, so the pasted log
is read and diagnosed rather than refused. The logs are written for this test. Torch-free.
"""

import pytest

from conftest import diagnose_log_report
from traindx.probes.readers.console import read_console_text


def _angled(n=12):
    out = []
    for i in range(1, n + 1):
        out += [f"INFO:  Iteration: {i}, Loss: <{1.6 * 0.8 ** i + 0.05:.10f}>", "CONTEXT:  PL/Python function \"fit\""]
    return "\n".join(out)


def _typed(n=12):
    return "\n".join(f"Iteration: {100 * i} | Loss: Tensor Float []  {0.9 * 0.7 ** i + 1e-3:.4e}"
                     for i in range(1, n + 1))


@pytest.mark.parametrize("text", [_angled(), _typed()], ids=["angle-brackets", "typed-tensor"])
def test_the_wrapped_loss_is_read(text):
    log = read_console_text(text)
    ys = [y for _x, y in log.series["loss"].head]
    assert len(ys) >= 10 and ys[0] > ys[-1] > 0


def test_the_report_is_a_diagnosis(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _angled())
    assert rep["status"] == "healthy"
