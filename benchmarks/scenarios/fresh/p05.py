"""Two-spirals style classification with a residual MLP."""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(5)
rng = np.random.default_rng(5)


def spirals(n, noise=0.15, turns=2.0):
    k = rng.integers(0, 3, n)
    r = rng.uniform(0.1, 1.0, n)
    theta = r * turns * 2 * np.pi + k * 2 * np.pi / 3
    pts = np.stack([r * np.cos(theta), r * np.sin(theta)], 1) + rng.normal(0, noise * 0.2, (n, 2))
    return torch.tensor(pts, dtype=torch.float32), torch.tensor(k)


class ResBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin1 = nn.Linear(d, d)
        self.lin2 = nn.Linear(d, d)

    def forward(self, x):
        return x + self.lin2(F.relu(self.lin1(x)))


class ResMLP(nn.Module):
    def __init__(self, d_in=2, width=64, depth=3, n_out=3):
        super().__init__()
        self.blocks = [nn.Linear(d_in, width)] + [ResBlock(width) for _ in range(depth)]
        self.head = nn.Linear(width, n_out)

    def forward(self, x):
        h = x
        for b in self.blocks:
            h = F.relu(b(h))
        return self.head(h)


Xtr, ytr = spirals(3000)
Xva, yva = spirals(600)
model = ResMLP()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
crit = nn.CrossEntropyLoss()
print(f"model parameters: {sum(p.numel() for p in model.parameters()):,}")

with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "loss", "accuracy", "val_loss", "val_accuracy"])
    for step in range(1, 1201):
        idx = torch.randint(0, len(Xtr), (128,))
        out = model(Xtr[idx])
        loss = crit(out, ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 40 == 0:
            with torch.no_grad():
                vo = model(Xva)
                vl = crit(vo, yva).item()
                va = (vo.argmax(1) == yva).float().mean().item()
            acc = (out.argmax(1) == ytr[idx]).float().mean().item()
            wr.writerow([step, f"{loss.item():.5f}", f"{acc:.4f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"step {step:5d}  loss {loss.item():.4f}  acc {acc:.3f}  val_loss {vl:.4f}  val_acc {va:.3f}")
