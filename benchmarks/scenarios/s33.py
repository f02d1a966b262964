"""Learned-weight ensemble of small MLPs for a 6-class rule-based problem over 20 features."""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def member(d_in, width, n_out, p_drop):
    return nn.Sequential(
        nn.Linear(d_in, width), nn.ReLU(), nn.Dropout(p_drop),
        nn.Linear(width, width), nn.ReLU(),
        nn.Linear(width, n_out),
    )


class Ensemble(nn.Module):
    def __init__(self, d_in, width, n_members, n_out, p_drop=0.1):
        super().__init__()
        self.members = [member(d_in, width, n_out, p_drop) for _ in range(n_members)]
        self.mix_logits = nn.Parameter(torch.zeros(n_members))

    def forward(self, x):
        weights = torch.softmax(self.mix_logits, dim=0)
        logits = torch.stack([m(x) for m in self.members], dim=0)
        return (weights[:, None, None] * logits).sum(0)


def rule_data(n, rng):
    x = rng.normal(size=(n, 20)).astype(np.float32)
    s1 = np.sin(2 * x[:, 0]) + x[:, 1] * x[:, 2]
    s2 = np.abs(x[:, 3]) - np.abs(x[:, 4]) + 0.5 * x[:, 5] * x[:, 6]
    y = np.digitize(s1, [-0.5, 0.5]) * 2 + (s2 > 0)
    return torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))


torch.manual_seed(33)
rng = np.random.default_rng(33)
x_tr, y_tr = rule_data(4000, rng)
x_va, y_va = rule_data(1000, rng)
loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=64, shuffle=True)

model = Ensemble(20, 64, n_members=4, n_out=6)
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-2)
print("trainable parameters:", sum(p.numel() for p in model.parameters()))

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy"])
    for epoch in range(10):
        model.train()
        tot, hit, n = 0.0, 0, 0
        for xb, yb in loader:
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            tot += loss.item() * len(yb)
            hit += (out.argmax(1) == yb).sum().item()
            n += len(yb)
        model.eval()
        with torch.no_grad():
            vo = model(x_va)
            vl = F.cross_entropy(vo, y_va).item()
            va = (vo.argmax(1) == y_va).float().mean().item()
        w.writerow([epoch, f"{tot / n:.5f}", f"{vl:.5f}", f"{hit / n:.4f}", f"{va:.4f}"])
        print(f"epoch {epoch:2d}  train {tot / n:.4f} ({hit / n:.3f})  val {vl:.4f} ({va:.3f})")
