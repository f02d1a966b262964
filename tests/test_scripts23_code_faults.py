"""Faults a first-run batch of scripts (s324-s334) showed and traindx missed (issue 12, session 23).

What a user would notice:
- a hand-written batch norm (batch statistics in training, a moving mean and variance in evaluation)
  whose update op is written but never run: training converges while every evaluation is poor and
  gets worse, and traindx blamed a lack of regularisation (code:model eval_stats_never_updated now
  reads it as the train/eval mismatch it is; running the update op clears it);
- a hand-written cross-entropy ``-(log_probs * one_hot).mean()`` averages over the classes as well
  as the batch, so the loss and every gradient are divided by the class count and SGD creeps
  (code:loss loss_averages_classes -> wrong_loss_function; summing over the classes clears it);
- a layer built after an earlier training phase (a new task's head) and frozen with the rest was
  never trained: the live grad-flow probe says its weights are its initialisation
  (frozen_weights random_init), where the code reader saw only a freeze after a backward pass.
"""
from __future__ import annotations

import copy
import weakref

import pytest

from conftest import diagnose_code_and_log as _run, top_cause as _top, facts_by_id as _facts

HAND_BN = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class HandBN(nn.Module):
    def __init__(self, c, decay=0.99):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(c))
        self.register_buffer("moving_mean", torch.zeros(c))
        self.register_buffer("moving_var", torch.ones(c))
        self.decay = decay

    def update_op(self, m, v):
        self.moving_mean.mul_(self.decay).add_((1 - self.decay) * m)
        self.moving_var.mul_(self.decay).add_((1 - self.decay) * v)

    def forward(self, x):
        if self.training:
            m, v = x.mean(0), x.var(0, unbiased=False)
            self.last = (m.detach(), v.detach())
        else:
            m, v = self.moving_mean, self.moving_var
        return self.gamma * (x - m) / torch.sqrt(v + 1e-3)


bn = HandBN(32)
model = nn.Sequential(nn.Linear(8, 32), bn, nn.ReLU(), nn.Linear(32, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = 100 * torch.randn(480, 8), torch.randint(0, 3, (480,))
for epoch in range(12):
    model.train()
    for i in range(0, 480, 16):
        loss = F.cross_entropy(model(x[i:i + 16]), y[i:i + 16])
        opt.zero_grad(); loss.backward(); opt.step()
        UPDATE
    model.eval()
    with torch.no_grad():
        out = model(x[:96])
        ta = (model(x[:16]).argmax(1) == y[:16]).float().mean()
        va = (out.argmax(1) == y[:96]).float().mean()
        print(f"epoch {epoch + 1} train loss {loss.item():.4f} acc {ta:.3f}"
              f" | val loss {F.cross_entropy(out, y[:96]).item():.4f} acc {va:.3f}")
'''

#: what such a run prints: training converges, the evaluation-mode validation is poor and worsens
BN_LOG = "\n".join(
    f"epoch {e + 1} train loss {tl:.4f} acc {ta:.3f} | val loss {vl:.4f} acc {va:.3f}"
    for e, (tl, ta, vl, va) in enumerate(zip(
        [0.76, 0.31, 0.17, 0.11, 0.08, 0.06, 0.05, 0.045, 0.04, 0.035, 0.031, 0.028],
        [0.80, 0.93, 0.96, 0.98, 0.985, 0.99, 0.992, 0.993, 0.995, 0.996, 0.996, 0.997],
        [34.5, 48.2, 60.1, 67.9, 70.3, 72.8, 75.0, 76.4, 78.1, 79.5, 80.2, 81.1],
        [0.54, 0.53, 0.53, 0.52, 0.53, 0.52, 0.53, 0.52, 0.52, 0.53, 0.52, 0.52]))) + "\n"


def test_a_batch_norm_whose_update_op_never_runs_is_a_mode_mismatch(tmp_path):
    rep = _run(tmp_path, HAND_BN.replace("UPDATE", "pass"), BN_LOG)
    facts = _facts(rep)
    assert facts["eval_stats_never_updated"]["value"] is True
    read = next(i for i, ln in enumerate(HAND_BN.splitlines(), 1) if "= self.moving_mean" in ln)
    assert facts["eval_stats_never_updated"]["source"].endswith(f":{read}")   # the evaluation branch's read
    assert facts["model_has_dropout_or_bn"]["value"] is True
    assert rep["status"] == "diagnosed"
    assert _top(rep) == "train_eval_mode_mismatch"


def test_the_same_batch_norm_with_its_update_op_run_is_no_mismatch(tmp_path):
    rep = _run(tmp_path, HAND_BN.replace("UPDATE", "bn.update_op(*bn.last)"), BN_LOG)
    assert "eval_stats_never_updated" not in _facts(rep)
    assert _top(rep) != "train_eval_mode_mismatch"


CE_BY_HAND = '''
import torch
import torch.nn as nn
import torch.nn.functional as F

x, y = torch.rand(6000, 64), torch.randint(0, 5, (6000,))
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 5), nn.LogSoftmax(dim=-1))
opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)


def loss_fn(log_probs, targets):
    return REDUCTION


for epoch in range(10):
    for k in range(0, 6000, 128):
        loss = loss_fn(model(x[k:k + 128]), F.one_hot(y[k:k + 128], 5).float())
        opt.zero_grad(); loss.backward(); opt.step()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    print(f"epoch {epoch + 1} train loss {loss.item():.4f} | train acc {acc:.3f}")
'''

#: a loss that starts at ln(5)/5 and creeps down while the accuracy climbs
CE_LOG = "\n".join(f"epoch {e + 1} train loss {0.3219 - 0.0009 * e:.4f} | train acc {0.22 + 0.045 * e:.3f}"
                   for e in range(10)) + "\n"


def test_a_cross_entropy_averaged_over_the_classes_is_the_wrong_loss(tmp_path):
    rep = _run(tmp_path, CE_BY_HAND.replace("REDUCTION", "-(log_probs * targets).mean()"), CE_LOG)
    facts = _facts(rep)
    assert facts["loss_averages_classes"]["value"] is True
    assert "divided by the number of classes" in facts["loss_averages_classes"]["detail"]
    assert _top(rep) == "wrong_loss_function"


def test_the_same_cross_entropy_summed_over_the_classes_is_not(tmp_path):
    rep = _run(tmp_path, CE_BY_HAND.replace("REDUCTION", "-(log_probs * targets).sum(dim=1).mean()"), CE_LOG)
    assert "loss_averages_classes" not in _facts(rep)
    assert _top(rep) != "wrong_loss_function"


def test_a_head_built_after_the_first_phase_and_frozen_was_never_trained():
    torch = pytest.importorskip("torch")
    from traindx.probes.live.gradients import frozen_since

    model = torch.nn.ModuleDict({"body": torch.nn.Linear(4, 8), "heads": torch.nn.ModuleList([torch.nn.Linear(8, 3)])})
    earlier = {id(p): weakref.ref(p) for p in model.parameters()}
    model["heads"].append(torch.nn.Linear(8, 3))                  # a new task's head, random
    model["heads"].append(copy.deepcopy(model["heads"][0]))       # a copy of the trained head
    for name, p in model.named_parameters():
        p.requires_grad = name.startswith("body")
    assert frozen_since(model, earlier) == ["heads.1.weight", "heads.1.bias"]
    # frozen parameters that were there all along (a loaded backbone) are not "built since"
    assert frozen_since(model, {id(p): weakref.ref(p) for p in model.parameters()}) == []
