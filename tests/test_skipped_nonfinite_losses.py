"""A run that skips its NaN batches still diverged.

Many training loops guard the backward pass: ``if not torch.isfinite(loss): print("Skip this batch");
continue`` (EDSR's skip_threshold, fairseq's "NaN detected, skipping"). Once the model's outputs go
non-finite, every later loss is skipped: no backward pass and no optimizer step ever sees one. The
monitor used to take a loss no backward followed for a validation loss, so such a run read as one
finite training step and a column of NaN validation losses -- "not learning" instead of a blow-up.
A NaN loss from a forward in training mode is a training loss, backward or not.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import traindx.probes as tp  # noqa: E402


def _run(skip_from: int | None, steps: int = 12):
    """A small regression trained with a skip-non-finite guard; from batch ``skip_from`` on the inputs
    carry an inf (as a half-precision overflow leaves them), so every later loss is NaN."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    mon = tp.Monitor(model, opt)
    skipped = 0
    with mon:
        for i in range(steps):
            x, y = torch.randn(32, 6), torch.randn(32, 1)
            if skip_from is not None and i >= skip_from:
                x[0, 0] = float("inf")
            model.train()
            loss = F.mse_loss(model(x), y)
            mon.on_loss(loss, outputs=None, targets=None, loss_name="mse")
            if not torch.isfinite(loss):
                skipped += 1
                continue
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            val = F.mse_loss(model(torch.randn(32, 6)), torch.randn(32, 1))
            mon.on_loss(val, outputs=None, targets=None, loss_name="mse")
    return {f.fact: f.value for f in mon.findings()}, skipped


def test_nan_losses_the_script_skipped_are_read_as_a_blow_up():
    facts, skipped = _run(skip_from=3)
    assert skipped == 9
    assert facts["loss_has_nonfinite"] is True
    assert facts["nan_first_step"] == 3


def test_a_clean_run_with_the_same_guard_stays_finite():
    facts, skipped = _run(skip_from=None)
    assert skipped == 0
    assert facts["loss_has_nonfinite"] is False
    assert "nan_first_step" not in facts


SKIPPING_SCRIPT = '''
import torch, torch.nn as nn
torch.manual_seed(0); torch.set_num_threads(1)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
criterion = nn.L1Loss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    model.train()
    for i in range(10):
        x, y = torch.randn(32, 6), torch.randn(32, 1)
        if epoch * 10 + i >= BAD_FROM:
            x[0, 0] = float("inf")          # what a half-precision overflow leaves in a batch
        opt.zero_grad()
        loss = criterion(model(x), y)
        if torch.isfinite(loss):
            loss.backward()
            opt.step()
        else:
            print("Skip this batch %d! (Loss: %s)" % (i, loss.item()))
'''


@pytest.mark.parametrize("bad_from,nonfinite", [(2, True), (10 ** 6, False)])
def test_the_script_runner_sees_the_losses_a_run_skipped(tmp_path, bad_from, nonfinite):
    from traindx.probes.runner.supervise import run_script

    script = tmp_path / "train.py"
    script.write_text(SKIPPING_SCRIPT.replace("BAD_FROM", str(bad_from)))
    r = run_script(str(script), env={"OMP_NUM_THREADS": "1"}, timeout=300)
    assert r.crash is None
    assert r.finding("loss_has_nonfinite").value is nonfinite
    first = r.finding("nan_first_step")
    assert (first is not None) is nonfinite


SIDE_LOSS_SCRIPT = '''
import torch, torch.nn as nn
torch.manual_seed(0); torch.set_num_threads(1)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
criterion, metric = nn.MSELoss(), nn.L1Loss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(30):
    model.train()
    x, y = torch.randn(32, 6), torch.randn(32, 1)
    out = model(x)
    y_log = y.clone(); y_log[0] = float("nan")      # a logging target with a hole in it
    mae = metric(out, y_log)                         # logged, never back-propagated
    loss = criterion(out, y)
    opt.zero_grad(); loss.backward(); opt.step()
    print("step %d loss %.4f mae %s" % (step, loss.item(), mae.item()))
'''


def test_a_nan_side_metric_beside_a_trained_loss_is_not_a_blow_up(tmp_path):
    """Only a loss that no backward pass followed is read: a NaN metric computed for logging beside the
    loss the run back-propagates says nothing about the run."""
    from traindx.probes.runner.supervise import run_script

    script = tmp_path / "train.py"
    script.write_text(SIDE_LOSS_SCRIPT)
    r = run_script(str(script), env={"OMP_NUM_THREADS": "1"}, timeout=300)
    assert r.crash is None
    assert r.finding("loss_has_nonfinite").value is False
    assert r.finding("nan_first_step") is None
