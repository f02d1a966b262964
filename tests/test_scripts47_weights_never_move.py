"""Session 47 (scriptimp47): a hand-written optimizer handed the weights before they exist.

What a user would notice: a script whose layers are created lazily in the first forward (weights in
a dict, no nn.Module) builds its hand-written AdamW over that dict before the first forward, so the
optimizer holds nothing and nothing is learned. No torch.optim optimizer and no nn.Module is there
for the live probes to compare, and traindx said "learning rate too low". The held-out loss, scored
on the same set after every epoch, is identical to its last digits: no weight the forward reads ever
moves, which a too-small learning rate does not do. traindx now names the weights kept from the
update (params_not_in_optimizer) and no longer a too-low learning rate; the same script with the
optimizer built after the first forward trains, and its held-out loss moves.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from traindx.engine.api import Session

LAZY = """\
    import os, sys
    os.environ["OMP_NUM_THREADS"] = "1"
    import torch, torch.nn.functional as F
    torch.manual_seed(0)
    x = torch.randn(96, 6); y = (x[:, 0] + x[:, 1] > 0).long()
    xv = torch.randn(32, 6); yv = (xv[:, 0] + xv[:, 1] > 0).long()
    store = {}
    def get(name, shape):
        if name not in store:
            store[name] = (torch.randn(shape) * 0.3).requires_grad_(True)
        return store[name]
    def forward(v):
        h = torch.tanh(v @ get("w1", (6, 8)) + get("b1", (8,)))
        return h @ get("w2", (8, 2)) + get("b2", (2,))
    class Adam:
        def __init__(self, ps, lr):
            self.ps = [(p, torch.zeros_like(p)) for p in ps]; self.lr = lr
        def step(self):
            with torch.no_grad():
                for p, m in self.ps:
                    m.mul_(0.9).add_(p.grad, alpha=0.1); p.sub_(self.lr * m.sign())
    if sys.argv[1] == "before":
        opt = Adam(list(store.values()), 0.01)      # the dict is still empty: the optimizer holds nothing
    else:
        forward(x[:1]); opt = Adam(list(store.values()), 0.01)
    for epoch in range(30):
        for i in range(0, 96, 8):
            loss = F.cross_entropy(forward(x[i:i + 8]), y[i:i + 8])
            loss.backward(); opt.step()
            for p in store.values(): p.grad = None
        with torch.no_grad():
            vl = F.cross_entropy(forward(xv), yv).item()
        print("epoch", epoch, "val", vl, flush=True)
"""


def _run(tmp_path: Path, how: str):
    pytest.importorskip("torch")
    from traindx.probes.runner.supervise import run_script
    p = tmp_path / "lazy.py"
    p.write_text(textwrap.dedent(LAZY))
    r = run_script(p, [how])
    assert r.exit_code == 0, r.stderr_tail
    return r


def test_a_held_out_loss_identical_at_every_evaluation_is_measured(tmp_path):
    f = _run(tmp_path, "before").finding("val_loss_unchanged")
    assert f is not None and f.value is True


def test_a_held_out_loss_that_moves_is_not_unchanged(tmp_path):
    f = _run(tmp_path, "after").finding("val_loss_unchanged")
    assert f is not None and f.value is False


_STILL = {"loss_trend": "flat", "symptom": "not_learning", "initial_loss": 0.72, "current_loss": 0.718,
          "loss_decrease_fraction": 0.003, "num_classes": 2, "loss_function": "nll", "val_loss": 0.698,
          "val_loss_trend": "flat", "loss_at_chance": True, "ends_at_chance": True, "zero_grad_called": True,
          "batch_size": 5, "shuffle": True, "dropout_p": 0.1, "loss_noise": 0.087}


def _report(kb, facts):
    s = Session(kb)
    s.add_answers(facts)
    s.run()
    return s.report()


def test_weights_that_never_move_name_the_update_not_a_low_learning_rate(kb):
    rep = _report(kb, {**_STILL, "val_loss_unchanged": True})
    causes = [c["id"] for c in rep["root_causes"]]
    assert causes[0] in ("params_not_in_optimizer", "frozen_parameters")
    assert causes.index("lr_too_low") > 2


def test_a_held_out_loss_that_moves_leaves_the_low_learning_rate_in_the_running(kb):
    rep = _report(kb, {**_STILL, "val_loss_unchanged": False})
    assert rep["root_causes"][0]["id"] not in ("params_not_in_optimizer",)
