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


# A Keras port: each layer's kernel_regularizer=l2(0.1) becomes a method of the model that the training
# loop adds to the loss; the coefficient sits inside the sum over the layers.
KERAS_PORT = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(20, 32)
        self.b = nn.Linear(32, 3)

    def forward(self, x):
        return self.b(F.relu(self.a(x)))

    def penalties(self):
        return sum(COEF * (layer.weight ** 2).sum() for layer in [self.a, self.b])


net = Net()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
x, y = torch.randn(256, 20), torch.randint(0, 3, (256,))
for step in range(100):
    out = net(x)
    loss = F.cross_entropy(out, y) + net.penalties()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_a_penalty_a_model_method_returns_and_sums_over_its_layers_is_weight_decay(tmp_path):
    """Coupled decay twice the coefficient, located at the method's line; a coefficient of 0 is no decay."""
    from traindx.probes.readers.code import analyze_code
    script = tmp_path / "train.py"
    script.write_text(KERAS_PORT.replace("COEF", "0.1"))
    found = {f.fact: f for f in analyze_code(str(script)).findings}
    assert found["weight_decay"].value == 0.2
    assert found["weight_decay"].source == "code:train.py:16"
    script.write_text(KERAS_PORT.replace("COEF", "0.0"))
    found = {f.fact: f for f in analyze_code(str(script)).findings}
    assert "weight_decay" not in found or found["weight_decay"].value == 0


def test_a_penalty_in_the_loss_outranks_the_probes_reading_of_the_optimizer_whichever_comes_first():
    """Under --script the live probe reads weight_decay 0 from the optimizer; the code reader's penalty in
    the loss is decay the optimizer never holds, so the session keeps it and names the disagreement. A
    plain code reading (no penalty) still yields to the probe, as every code reading does."""
    from traindx.engine.evidence import Finding
    from traindx.engine.inference import Session
    from traindx.engine.loader import load_kb
    kb = load_kb()
    pen = Finding("weight_decay", 0.2, "code:train.py:16", "the L2 penalty ...", {"beyond_probe": True, "why": "x"})
    probe = Finding("weight_decay", 0.0, "probe:regularization", "optimizer weight_decay 0")
    for order in ([pen, probe], [probe, pen]):
        s = Session(kb)
        s.add_findings(order)
        assert s.base["weight_decay"].value == 0.2 and s.base["weight_decay"].source == "code:train.py:16"
        assert any("kept 0.2" in c for c in s.conflicts), s.conflicts
    s = Session(kb)
    s.add_findings([Finding("weight_decay", 0.2, "code:train.py:9", "weight_decay=0.2"), probe])
    assert s.base["weight_decay"].value == 0.0
