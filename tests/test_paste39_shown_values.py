"""Session 39: values printed as an expression shown with its value - Julia's ``@show`` and Python's
``f"{expr=}"`` print ``loss(x, y) = 0.0913`` and ``accuracy(m, x, label, 0:9) = 0.105``, and under
Flux's Tracker the value itself sits in a ``param(...)`` call - are read as the loss and the accuracy
the function names; a perplexity named in prose (``Validation perplexity is 6.61``) is read as the
validation loss it stands for, as ``Validation loss is`` already was. A call that changes its number
(``PPL = exp(0.001)``) and one word in parentheses (``time(s)=12``, a unit) stay as they were. The
logs are written for this test. Torch-free.
"""

import math

import pytest

from conftest import diagnose_log_report
from traindx.probes.readers.console import read_console_text


def _shown(n=14, wrap=""):
    out = ["INFO: Training"]
    for i in range(1, n + 1):
        loss = 0.09 * 0.8 ** i + 0.005
        value = f"{wrap}({loss:.6g})" if wrap else f"{loss:.6g}"
        out += [f"loss(x, y) = {value}", f"accuracy(m, x, label, 0:9) = {1 - 0.9 * 0.75 ** i:.6g}"]
    return "\n".join(out)


@pytest.mark.parametrize("wrap", ["", "param"], ids=["plain", "flux-param"])
def test_a_shown_call_names_its_value(wrap):
    log = read_console_text(_shown(wrap=wrap))
    losses = [y for _x, y in log.series["loss"].head]
    accs = [y for _x, y in log.series["accuracy"].head]
    assert len(losses) == 14 and losses[0] > losses[-1] > 0
    assert len(accs) == 14 and accs[0] < accs[-1] < 1


def test_a_shown_run_is_diagnosed(tmp_path):
    rep, _ = diagnose_log_report(tmp_path, _shown(wrap="param"))
    assert rep["status"] == "healthy"


def test_a_call_that_changes_its_number_is_not_its_value():
    text = "\n".join(f"step {i} train loss {2.0 - 0.1 * i:.3f}\nPPL = exp({0.001 * i:.4f})" for i in range(1, 9))
    log = read_console_text(text)
    assert [round(y, 3) for _x, y in log.series["loss"].head][:2] == [1.9, 1.8]


def test_a_perplexity_named_in_prose_is_the_validation_loss():
    text = "\n".join([f"Epoch = {e}\nPPL: {1.5 - 0.05 * e:.4f}\nValidation perplexity is {6.0 + 0.2 * e:.4f}"
                      for e in range(1, 7)])
    log = read_console_text(text)
    vals = [y for _x, y in log.series["val_loss"].head]
    assert len(vals) == 6 and math.isclose(vals[0], math.log(6.2), rel_tol=1e-3)
