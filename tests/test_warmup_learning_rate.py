"""Session 47: a warm-up that starts at 0 is no learning rate of 0.

A healthy detector (a YOLOv3 port) warms its rate up from 0 by writing each param group's lr every
step. The optimizer probe reported the first step's rate, 0, as the run's learning rate, and the
rules read "learning rate 0 is below 1e-6 - far too small to move the weights" (Not Learning, LR too
low, 0.98). The rate a run is set to train at is the one its warm-up rises to.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import traindx.probes as tp  # noqa: E402


def _learning_rate(warmup_steps, peak=0.01, steps=60):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    opt = torch.optim.SGD(model.parameters(), lr=peak)
    if warmup_steps:
        opt.param_groups[0]["lr"] = 0.0                  # as a LambdaLR warm-up leaves it when built
    x, y = torch.randn(256, 4), torch.randint(0, 3, (256,))
    with tp.watch(model, opt, experiments=False) as w:
        for step in range(steps):
            for g in opt.param_groups:                     # the warm-up written by hand
                g["lr"] = peak * min(1.0, step / warmup_steps) if warmup_steps else peak
            xb, yb = x[(step * 16) % 256:(step * 16) % 256 + 16], y[(step * 16) % 256:(step * 16) % 256 + 16]
            out = model(xb)
            loss = torch.nn.functional.cross_entropy(out, yb)
            w.observe(loss, out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return {f.fact: f for f in w.findings()}["learning_rate"]


def test_a_warm_up_from_zero_reports_the_rate_it_rises_to():
    lr = _learning_rate(warmup_steps=20)
    assert lr.value == pytest.approx(0.01) and "warm-up" in lr.detail


def test_a_constant_rate_is_reported_as_set():
    lr = _learning_rate(warmup_steps=0)
    assert lr.value == pytest.approx(0.01) and "initial learning rate" in lr.detail
