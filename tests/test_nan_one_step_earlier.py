"""A non-finite input that passes a saturating forward (tanh of +Inf is 1) gives a finite loss and
NaN gradients: the weights turn NaN on that step and the loss one step later, on finite inputs.
The NaN trace must still find ``nan_in_inputs`` where it happened -- the batch of the first
non-finite gradient, or the one before the first non-finite loss -- not blame the finite batch
the NaN loss was computed on."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import traindx.probes as tp  # noqa: E402

SCRIPT = """\
    import torch, torch.nn as nn
    torch.manual_seed(0); torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    N, D, C = 640, 8, 4
    centres = torch.randn(C, D, generator=g) * 2
    y = torch.randint(0, C, (N,), generator=g)
    x = centres[y] + 0.3 * torch.randn(N, D, generator=g)
    x[16 * BAD + 3, 2] = float("inf")          # one +Inf feature in one batch
    model = nn.Sequential(nn.Linear(D, 32), nn.Tanh(), nn.Linear(32, C))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    crit = nn.CrossEntropyLoss()
    for epoch in range(3):
        for i in range(0, N, 16):
            xb, yb = x[i:i + 16], y[i:i + 16]
            loss = crit(model(xb), yb)
            opt.zero_grad(); loss.backward(); opt.step()
    """


def _data(bad_batch, n=640, d=8, c=4):
    g = torch.Generator().manual_seed(0)
    centres = torch.randn(c, d, generator=g) * 2
    y = torch.randint(0, c, (n,), generator=g)
    x = centres[y] + 0.3 * torch.randn(n, d, generator=g)
    x[16 * bad_batch + 3, 2] = float("inf")
    return x, y


def _watch_run(bad_batch, loader):
    torch.manual_seed(0)
    x, y = _data(bad_batch)
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    crit = nn.CrossEntropyLoss()
    if loader:
        batches = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
    else:
        batches = [(x[i:i + 16], y[i:i + 16]) for i in range(0, len(x), 16)]
    losses = []
    with tp.watch(model, opt, train_loader=batches if loader else None) as w:
        it = w.loader(batches, phase="train") if loader else batches
        for xb, yb in it:
            loss = crit(model(xb), yb)
            w.observe(loss, outputs=None, targets=yb)
            losses.append(loss.item())
            opt.zero_grad()
            loss.backward()
            opt.step()
    facts = {f.fact: f for f in w.findings()}
    return facts, losses


@pytest.mark.parametrize("bad_batch", [5, 23])      # a step whose gradients are sampled, and one not
@pytest.mark.parametrize("loader", [True, False])
def test_inf_input_through_tanh_is_found_one_step_earlier(bad_batch, loader):
    facts, losses = _watch_run(bad_batch, loader)
    # the premise: the bad batch's own loss is finite, the next one is not
    assert all(v == v and abs(v) != float("inf") for v in losses[:bad_batch + 1])
    assert losses[bad_batch + 1] != losses[bad_batch + 1]
    assert facts["nan_first_step"].value == bad_batch + 1
    f = facts["inputs_have_nan"]
    assert f.value is True and f.source == "probe:nan_trace"
    assert f"step {bad_batch}'s batch" in f.detail


def test_finite_inputs_still_read_finite_when_the_weights_blow_up():
    # the same model with finite inputs and an LR that blows the weights up: no input is blamed
    torch.manual_seed(0)
    x, y = _data(0)
    x[3, 2] = 1.0
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=1e38)
    crit = nn.CrossEntropyLoss()
    with tp.watch(model, opt) as w:
        for i in range(0, 320, 16):
            loss = crit(model(x[i:i + 16]), y[i:i + 16])
            w.observe(loss, targets=y[i:i + 16])
            opt.zero_grad()
            loss.backward()
            opt.step()
    facts = {f.fact: f.value for f in w.findings()}
    assert facts.get("nan_first_step") is not None
    assert facts.get("inputs_have_nan") is False


@pytest.mark.slow
def test_script_diagnosis_names_nan_in_inputs(tmp_path):
    script = tmp_path / "sat.py"
    script.write_text(textwrap.dedent(SCRIPT).replace("BAD", "23"))
    out = subprocess.run([sys.executable, "-m", "traindx.engine.frontends.cli", "diagnose", "--script",
                          str(script), "--non-interactive", "--format", "json"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout[out.stdout.index("{"):])
    assert report["symptom"]["id"] == "explosion"
    assert report["root_causes"][0]["id"] == "nan_in_inputs"


def test_a_nan_the_script_makes_between_loader_and_model_is_in_the_inputs():
    # the loader's batches are finite; the loop standardises each batch by its own std, and one
    # batch's feature is constant, so 0/0 makes NaN model inputs: the input, not module 0, is the fault
    torch.manual_seed(0)
    x, y = _data(0)
    x[:, 2] = torch.where(torch.isinf(x[:, 2]), torch.zeros(()), x[:, 2])
    x[16 * 7:16 * 8] = 1.0
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    crit = nn.CrossEntropyLoss()
    batches = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
    with tp.watch(model, opt, train_loader=batches) as w:
        for xb, yb in w.loader(batches, phase="train"):
            xb = (xb - xb.mean(0)) / xb.std(0)
            loss = crit(model(xb), yb)
            w.observe(loss, outputs=None, targets=yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
    facts = {f.fact: f for f in w.findings()}
    assert facts["nan_first_step"].value is not None
    assert facts["inputs_have_nan"].value is True
