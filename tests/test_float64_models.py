"""A model trained in float64 (scientific code, ports from Julia or NumPy, ``.double()``) is watched like
any other: every optimizer step is counted and the probes read it without faults of their own.

Before, the gradient-norm look asked torch for a float32 norm of float64 gradients, which torch refuses
("the dtype of the input (Double) should be convertible without narrowing"); the fault was caught in
the step pre-hook before the step was counted, so the monitor stayed at step 0 for the whole run, read
every step as one of the first (sampling all of them), and reported "training loss now ... after 0
steps" and a curve "over steps 0-0"."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import traindx.probes as tp  # noqa: E402
from traindx.probes.live.gradients import norms_of  # noqa: E402


@pytest.mark.parametrize("level", ["cheap", "full"])
def test_a_float64_run_counts_its_steps_and_its_probes_raise_nothing(level):
    torch.manual_seed(0)
    x = torch.randn(200, 12, dtype=torch.float64)
    y = (x[:, 0] > 0).long()
    model = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 2)).double()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with tp.watch(model, opt, level=level) as w:
        for _ in range(25):
            out = model(x)
            loss = nn.functional.cross_entropy(out, y)
            w.observe(loss, outputs=out, targets=y)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
        facts = {f.fact: f for f in w.findings()}
    assert w.monitor.steps == 25
    assert w.summary().get("errors") in (None, [])
    assert "after 25 steps" in facts["current_loss"].detail
    assert facts["grads_have_nan"].value is False


def test_norms_of_mixed_precisions_match_torch():
    ts = [torch.randn(5, dtype=torch.float64), torch.randn(7), torch.randn(3).to(torch.bfloat16)]
    got = norms_of(ts)
    want = [float(torch.linalg.vector_norm(t.double())) for t in ts]
    assert got == pytest.approx(want, rel=1e-3)
