"""An L2 penalty written into the loss is weight decay (issue 12).

What a user would notice: a script ported from a cs231n/MATLAB recipe adds ``0.5 * reg * sum(W ** 2)`` to
its loss and updates the weights by hand (``p -= step_size * p.grad``). With ``reg = 0.1`` the loss levels
off after a few hundred steps near chance and the accuracy stays where a linear classifier gets. Read from
the script and its console, traindx suggested an LR decay: no optimizer keyword showed the decay. The
penalty adds ``reg * W`` to every weight's gradient, coupled weight decay 0.1, and that holds the loss up.
"""
from __future__ import annotations

from pathlib import Path

from conftest import diagnose_code_and_log, facts_by_id, top_cause

CODE = (Path(__file__).parent / "code_cases" / "l2_penalty_written_into_the_loss.py").read_text()


def _log(fall_to):
    vals = [1.1012, 1.0900] + [fall_to + 0.00001 * (k % 3) - 0.000002 * k for k in range(18)]
    return "".join(f"iteration {500 * i}: loss {v:.6f}, training accuracy: 0.54, validation accuracy: 0.53\n"
                   for i, v in enumerate(vals))


def test_a_plateau_under_a_heavy_l2_penalty_in_the_loss_names_the_regularization(tmp_path):
    rep = diagnose_code_and_log(tmp_path, CODE, _log(1.0853))
    assert facts_by_id(rep)["weight_decay"]["value"] == 0.1
    assert top_cause(rep) == "excessive_regularization"


def test_a_light_penalty_is_not_blamed(tmp_path):
    code = CODE.replace("step_size, reg = 1.0, 0.1", "step_size, reg = 1.0, 0.001")
    rep = diagnose_code_and_log(tmp_path, code, _log(0.2450))
    assert facts_by_id(rep)["weight_decay"]["value"] == 0.001
    assert top_cause(rep) != "excessive_regularization"
