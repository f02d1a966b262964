"""A script without a DataLoader: the data wait is the time from the END of the optimizer step to the
next training forward (issue 12, session 49).

What a user would notice: a healthy run whose optimizer update is costly next to a tiny forward
(SparseAdam over embedding tables, a GloVe or word2vec run) was told its step "mostly waits for data"
(Training Slow, data_loading_bottleneck), because the host gap was timed from the step's start and so
counted the update itself as the script making its batch. The gap now starts when the step returns
(its post-hook); a script that really spends its step making batches in Python still reads data-bound.
"""

from __future__ import annotations

import time

import pytest

torch = pytest.importorskip("torch")

import traindx.probes as tp  # noqa: E402


class _SlowStep(torch.optim.SGD):
    """An optimizer whose update takes ``update_s`` seconds of compute (here a sleep)."""

    def __init__(self, params, update_s, **kw):
        super().__init__(params, **kw)
        self.update_s = update_s

    def step(self, closure=None):
        time.sleep(self.update_s)
        return super().step(closure)


def _host_loop(make_batch_s: float, update_s: float, steps=14):
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 2)
    opt = _SlowStep(model.parameters(), update_s, lr=0.1)
    with tp.watch(model, opt, experiments=False) as w:
        for _ in range(steps):
            time.sleep(make_batch_s)              # the script makes its batch in Python
            xb, yb = torch.randn(16, 8), torch.randn(16, 2)
            loss = ((model(xb) - yb) ** 2).mean()
            w.observe(loss)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return {f.fact: f for f in w.findings()}


def test_a_costly_optimizer_update_is_no_data_wait():
    found = _host_loop(0.0, 0.04)
    f = found.get("data_time_fraction")
    # the batch is made at once: the 40 ms update is compute, so no data wait is read at all
    assert f is None or f.value < 0.3


def test_a_batch_made_in_python_beside_a_costly_update_is_still_data_time():
    f = _host_loop(0.08, 0.02)["data_time_fraction"]
    assert f.value >= 0.5
    assert "end of the optimizer step" in f.detail


def test_a_closure_step_still_reads_its_gap():
    """LBFGS-style step(closure): forward and backward run inside the step; the gap keeps its old
    start (the step's own post-hook re-opens it), so a slow batch still reads as data time."""
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 2)
    opt = torch.optim.LBFGS(model.parameters(), lr=0.1, max_iter=1)
    with tp.watch(model, opt, experiments=False) as w:
        for _ in range(14):
            time.sleep(0.05)
            xb, yb = torch.randn(16, 8), torch.randn(16, 2)

            def closure(xb=xb, yb=yb):
                opt.zero_grad()
                loss = ((model(xb) - yb) ** 2).mean()
                loss.backward()
                return loss
            w.observe(opt.step(closure))
    found = {f.fact: f for f in w.findings()}
    assert found["data_time_fraction"].value >= 0.5
