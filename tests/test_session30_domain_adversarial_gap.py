"""A domain-adversarial run's source/target accuracy gap is not read as missing regularisation (session 30, finish30).

What a user would notice: a gradient-reversal (DANN-style) adaptation from labelled day-time images to
unlabelled night-time ones reports source accuracy 0.88 and target-domain validation accuracy 0.71, the
validation loss flat. traindx named insufficient regularisation with high confidence (no dropout, a
17-point gap), though the gap is the domain shift the adaptation narrows. The code reader now reads the
gradient-reversal layer (``gradient_reversal``) and the gap rules step aside; the same script without
the reversal layer (plain source-only training with the same figures) is still read as overfitting for
want of regularisation.
"""
from __future__ import annotations

from conftest import diagnose_code_and_log, facts_by_id, top_cause

CODE = '''
import torch, torch.nn as nn
from torch.autograd import Function


class FlipGrad(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.clone()

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out.neg() * ctx.alpha, None


trunk = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU())
head = nn.Linear(128, 6)
critic = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 1))
params = list(trunk.parameters()) + list(head.parameters()) + list(critic.parameters())
opt = torch.optim.Adam(params, lr=2e-4)
ce, bce = nn.CrossEntropyLoss(), nn.BCEWithLogitsLoss()
day_x, day_y = torch.randn(3000, 32), torch.randint(0, 6, (3000,))
night_x = torch.randn(3000, 32) * 1.5 + 0.4
night_val_x, night_val_y = torch.randn(600, 32) * 1.5 + 0.4, torch.randint(0, 6, (600,))
for ep in range(10):
    for i in range(0, 3000, 50):
        h_s, h_t = trunk(day_x[i:i + 50]), trunk(night_x[i:i + 50])
        cls = ce(head(h_s), day_y[i:i + 50])
        dom_in = {reverse}
        dom = bce(critic(dom_in).squeeze(1), torch.cat([torch.zeros(50), torch.ones(50)]))
        opt.zero_grad(); (cls + dom).backward(); opt.step()
    with torch.no_grad():
        out = head(trunk(night_val_x))
        acc = (head(h_s).argmax(1) == day_y[i:i + 50]).float().mean()
        vacc = (out.argmax(1) == night_val_y).float().mean()
        print(f"epoch {ep + 1}: train_loss {cls.item():.3f} train_acc {acc:.3f}"
              f" val_loss {ce(out, night_val_y).item():.3f} val_acc {vacc:.3f}")
'''

SRC_LOSS = [1.52, 1.10, 0.86, 0.72, 0.63, 0.57, 0.52, 0.49, 0.47, 0.46]
SRC_ACC = [0.42, 0.61, 0.71, 0.77, 0.81, 0.84, 0.86, 0.87, 0.88, 0.88]
VAL_LOSS = [1.58, 1.31, 1.12, 1.01, 0.95, 0.93, 0.92, 0.93, 0.92, 0.93]
VAL_ACC = [0.36, 0.50, 0.58, 0.63, 0.66, 0.68, 0.70, 0.70, 0.71, 0.71]
LOG = "".join(f"epoch {i + 1}: train_loss {a:.3f} train_acc {b:.3f} val_loss {c:.3f} val_acc {d:.3f}\n"
              for i, (a, b, c, d) in enumerate(zip(SRC_LOSS, SRC_ACC, VAL_LOSS, VAL_ACC)))


def _named(rep) -> str | None:
    """The cause the report commits to: its leading cause when it gives a diagnosis."""
    return top_cause(rep) if rep["status"] == "diagnosed" else None


def test_domain_adversarial_gap_is_not_called_missing_regularisation(tmp_path):
    code = CODE.replace("{reverse}", "FlipGrad.apply(torch.cat([h_s, h_t]), 1.0)")
    rep = diagnose_code_and_log(tmp_path, code, LOG)
    assert facts_by_id(rep)["gradient_reversal"]["value"] is True
    assert _named(rep) != "insufficient_regularization"


def test_the_same_gap_without_adaptation_is_still_overfitting(tmp_path):
    code = CODE.replace("{reverse}", "torch.cat([h_s, h_t]).detach()").replace("neg()", "clone()")
    rep = diagnose_code_and_log(tmp_path, code, LOG)
    assert "gradient_reversal" not in facts_by_id(rep)
    assert _named(rep) == "insufficient_regularization"
