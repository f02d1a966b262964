"""Experiments on a run that went NaN at its first steps start from its first weights (issue 12, session 26).

What a user would notice: an MLP fed raw features (byte counts up to ~1e7) through a hand-written
-log(softmax) loss is NaN from step 0. traindx named the unsafe log (numerical_instability, 0.93), and
every experiment it tried (a lower LR, standardised inputs, clipping) ran on copies of weights that were
already NaN, so each said "both copies went NaN/Inf -- inconclusive". The copies now start from the
run's first weights (kept on the CPU when the model is bound) with fresh optimizer state, so
standardising the inputs is seen to keep the copy finite where the unchanged copy blows up, and that
names the inputs' scale, not the log that overflows only at that scale.
"""
from __future__ import annotations

import pytest
import torch

from traindx.engine import differential

SCRIPT = """
import torch
torch.manual_seed(0)
scales = torch.tensor([3e3, 8e4, 1e5, 1.0, 1.0, 250.0, 6e3, 1.0])
X = (torch.randn(2048, 8) + 3.0).abs() * scales * 30
Y = (X[:, 3] > 3.0).long()
model = torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for step in range(80):
    i = (step * 32) % 2048
    xb, yb = X[i:i + 32], Y[i:i + 32]
    p = torch.softmax(model(xb), 1)
    loss = -torch.log(p[torch.arange(len(yb)), yb]).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("done", float(loss))
"""


def _unsafe(out, y):
    return -torch.log(torch.softmax(out, 1)[torch.arange(len(y)), y]).mean()


def _blown_up(kb):
    torch.manual_seed(0)
    scales = torch.tensor([3e3, 8e4, 1e5, 1.0, 1.0, 250.0, 6e3, 1.0])
    X = (torch.randn(1024, 8) + 3.0).abs() * scales * 30
    Y = torch.randint(0, 2, (1024,))
    m = torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
    first = {k: v.clone() for k, v in m.state_dict().items()}
    o = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    batches = []
    for i in range(32):
        xb, yb = X[i * 32:(i + 1) * 32], Y[i * 32:(i + 1) * 32]
        o.zero_grad()
        _unsafe(m(xb), yb).backward()
        o.step()
        batches.append(((xb,), {}, yb, (32, 2)))
    with torch.no_grad():
        m[0].weight.fill_(float("nan"))               # where such a run's weights end
    return m, o, batches, first


def test_copies_of_nan_weights_show_nothing_and_the_first_weights_do(kb):
    from traindx.probes.live.experiments import run_experiment

    m, o, batches, first = _blown_up(kb)
    assert not all(bool(torch.isfinite(p).all()) for p in m.parameters())
    spec = differential.spec(kb, "standardize_finite")
    r0 = run_experiment(m, o, batches, _unsafe, spec)
    assert r0["outcome"] == "inconclusive"                      # both copies NaN from the start
    r = run_experiment(m, o, batches, _unsafe, spec, context={"start_state": first})
    assert r["outcome"] == "confirms", r["detail"]
    assert "first weights" in r["detail"]
    assert not all(bool(torch.isfinite(p).all()) for p in m.parameters())   # the run is untouched


@pytest.mark.slow
def test_a_script_nan_from_step_0_gets_its_experiment_from_the_first_weights(tmp_path, kb):
    from traindx.probes.runner.supervise import run_script

    script = tmp_path / "train.py"
    script.write_text(SCRIPT)

    def experiment(findings, steps, done):
        return differential.spec(kb, "standardize_finite") if not done else None

    r = run_script(str(script), env={"OMP_NUM_THREADS": "1"}, experiment=experiment, timeout=300)
    assert r.exit_code == 0 and "done" in r.stdout_tail
    f = next(f for f in r.findings if f.fact == "exp_standardize_finite")
    assert f.value == "confirms", f.detail
    assert "first weights" in f.detail
