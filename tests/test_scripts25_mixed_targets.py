"""Healthy runs trained on mixed samples that traindx read as faults (issue 12, session 25).

What a user would notice: a mixup / CutMix / FMix run prints a training loss that stays far above zero
and swings from epoch to epoch, and a training accuracy on the mixed images well below validation's,
while validation keeps improving. traindx read the swings as instability (a batch too small) or the
validation-above-training gap as wrong training labels. The loss scores each prediction against two
labels (code:loss loss_mixes_targets), which explains both: the run is healthy. The same curves from a
script that scores each image against its own label still put the training labels first.
"""
from __future__ import annotations

from conftest import diagnose_json

SCRIPT = '''import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(0)
X, Y = torch.randn(4000, 3, 12, 12), torch.randint(0, 8, (4000,))
Xv, Yv = torch.randn(800, 3, 12, 12), torch.randint(0, 8, (800,))
net = nn.Sequential(nn.Conv2d(3, 24, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(),
                    nn.Linear(96, 8))
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
for epoch in range(12):
    net.train()
    order = torch.randperm(len(X))
    for k in range(0, len(X), 64):
        idx = order[k:k + 64]
        xb, yb = X[idx], Y[idx]
        LOSS
        opt.zero_grad(); loss.backward(); opt.step()
        acc = (out.argmax(1) == yb).float().mean().item()
    net.eval()
    with torch.no_grad():
        vo = net(Xv)
        vl = F.cross_entropy(vo, Yv).item()
        va = (vo.argmax(1) == Yv).float().mean().item()
    print(f"epoch {epoch + 1} train loss {loss.item():.4f} train acc {acc:.3f} | val loss {vl:.4f} val acc {va:.3f}")
'''

MIXED = ("lam = float(rng.beta(1.0, 1.0)); other = torch.randperm(len(idx))\n"
         "        out = net(lam * xb + (1 - lam) * xb[other])\n"
         "        loss = lam * F.cross_entropy(out, yb) + (1 - lam) * F.cross_entropy(out, yb[other])")
PLAIN = ("out = net(xb)\n"
         "        loss = F.cross_entropy(out, yb)")

#: the training loss falls to about half of its start and then swings; validation keeps improving and
#: sits far above the training accuracy
LOG = "\n".join(
    f"epoch {e + 1} train loss {tl:.4f} train acc {ta:.3f} | val loss {vl:.4f} val acc {va:.3f}"
    for e, (tl, ta, vl, va) in enumerate(zip(
        [2.05, 1.62, 1.31, 1.18, 1.02, 1.29, 0.97, 1.24, 1.01, 1.22, 0.99, 1.15],
        [0.24, 0.38, 0.49, 0.55, 0.61, 0.52, 0.63, 0.55, 0.62, 0.56, 0.64, 0.58],
        [1.71, 1.22, 0.93, 0.74, 0.61, 0.52, 0.46, 0.41, 0.37, 0.34, 0.32, 0.30],
        [0.41, 0.58, 0.69, 0.76, 0.81, 0.85, 0.87, 0.89, 0.90, 0.91, 0.92, 0.92]))) + "\n"


def _run(tmp_path, loss: str):
    c = tmp_path / "train.py"
    c.write_text(SCRIPT.replace("LOSS", loss))
    lg = tmp_path / "console.log"
    lg.write_text(LOG)
    return diagnose_json("--code", str(c), "--log", str(lg))


def _facts(rep):
    return {f["fact"]: f for f in rep["facts"]}


def test_a_mixup_run_at_its_mixed_label_floor_is_healthy(tmp_path):
    rep = _run(tmp_path, MIXED)
    assert _facts(rep)["loss_mixes_targets"]["value"] is True
    assert rep["status"] == "healthy"
    assert not any(c["confidence"] >= 0.5 for c in rep["root_causes"])
    # the training labels are not suspected: no rule speaks for them (first only in a tie of bare priors)
    top = rep["root_causes"][0]
    assert top["id"] != "corrupted_labels" or not any(c["effect"] == "supports" for c in top["contributions"])


def test_the_same_gap_from_single_labels_still_suspects_the_training_labels(tmp_path):
    rep = _run(tmp_path, PLAIN)
    assert "loss_mixes_targets" not in _facts(rep)
    assert rep["root_causes"][0]["id"] == "corrupted_labels"
