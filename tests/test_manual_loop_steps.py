"""A training loop with no torch.optim optimizer still has steps.

What a user would notice: a hand-written loop (``grads = torch.autograd.grad(loss, params)`` then
``p -= lr * dp``, as in the JAX-style examples) was reported as "0 optimizer steps" with no loss
read at all: the runner counted steps only from ``optimizer.step()``. It now counts a step at each
loss the script differentiates (``autograd.grad`` or ``backward``) when it made no optimizer, stops
at ``--max-steps`` like any run, and reads the loss curve. A script that makes an optimizer is
counted by its optimizer as before.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")

from traindx.probes.runner.supervise import run_script  # noqa: E402

LOOP = """\
    import os, sys
    os.environ["OMP_NUM_THREADS"] = "1"
    import torch
    torch.manual_seed(0)
    X = torch.randn(256, 8); y = (X[:, :1] > 0).float()
    w = (torch.randn(8, 1) * 0.1).requires_grad_()
    b = torch.zeros(1, requires_grad=True)
    USE_GRAD = sys.argv[1] == "grad"
    for step in range(int(sys.argv[2])):
        i = (step * 32) % 256
        loss = torch.nn.functional.binary_cross_entropy_with_logits(X[i:i + 32] @ w + b, y[i:i + 32])
        if USE_GRAD:
            dw, db = torch.autograd.grad(loss, [w, b])
        else:
            loss.backward()
            dw, db = w.grad, b.grad
        with torch.no_grad():
            w -= 0.5 * dw
            b -= 0.5 * db
        if not USE_GRAD:
            w.grad = None; b.grad = None
    print("done", flush=True)
"""


def _script(tmp_path: Path) -> Path:
    p = tmp_path / "loop.py"
    p.write_text(textwrap.dedent(LOOP))
    return p


@pytest.mark.parametrize("how", ["grad", "backward"])
def test_a_hand_written_update_loop_counts_its_steps_and_reads_its_loss(tmp_path, how):
    r = run_script(_script(tmp_path), [how, "60"])
    assert r.stopped_reason == "finished" and r.exit_code == 0, r.stderr_tail
    # the last loss's update is made after it was differentiated; the step is counted at the next loss
    assert r.steps == 59
    assert r.finding("train_loss") is not None and r.finding("train_loss").value > 0
    assert r.finding("loss_trend") is not None
    # no parameter is known to the monitor: no gradient evidence is made up from nothing
    assert r.finding("grads_all_zero") is None


def test_max_steps_stops_a_hand_written_loop(tmp_path):
    r = run_script(_script(tmp_path), ["grad", "1000"], max_steps=7)
    assert r.stopped_reason == "max_steps" and r.steps == 7
    assert "done" not in r.stdout_tail
