"""Transfer learning on sensor feature vectors.

Stage 1 pre-trains an encoder on the plentiful 8-class source labels.
Stage 2 re-uses the frozen encoder for a 4-class target task with a new cosine-similarity head.
"""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(59)
rng = np.random.default_rng(59)

D_IN, D_FEAT = 24, 64
MIX = rng.normal(size=(6, D_IN)) / math.sqrt(6)


def sample(n, task):
    """Both tasks are read off the same 6 latent factors, seen through a fixed mixing."""
    z = rng.normal(size=(n, 6))
    x = np.tanh(z @ MIX) + rng.normal(0, 0.1, size=(n, D_IN))
    if task == "source":
        y = (z[:, 0] > 0).astype(int) + 2 * (z[:, 1] > 0) + 4 * (z[:, 2] > 0)
    else:
        y = (z[:, 0] + z[:, 1] > 0).astype(int) + 2 * (z[:, 2] - z[:, 0] > 0)
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(D_IN, 128), nn.LayerNorm(128), nn.GELU(),
                                 nn.Linear(128, D_FEAT), nn.LayerNorm(D_FEAT), nn.GELU())

    def forward(self, x):
        return self.net(x)


class CosineHead(nn.Module):
    def __init__(self, d, n_classes):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_classes, d) * 0.1)
        self.log_scale = nn.Parameter(torch.zeros(()))   # learnable temperature

    def forward(self, feats):
        return self.log_scale.exp() * F.normalize(feats, dim=1) @ F.normalize(self.weight, dim=1).t()


# ---- stage 1: pre-train the encoder on the source task ---------------------------------
encoder = Encoder()
src_head = nn.Linear(D_FEAT, 8)
xs, ys = sample(4000, "source")
opt = torch.optim.Adam(list(encoder.parameters()) + list(src_head.parameters()), lr=3e-3)
for epoch in range(3):
    for xb, yb in DataLoader(TensorDataset(xs, ys), batch_size=64, shuffle=True):
        opt.zero_grad()
        F.cross_entropy(src_head(encoder(xb)), yb).backward()
        opt.step()
with torch.no_grad():
    print(f"source pre-training done, acc {(src_head(encoder(xs)).argmax(1) == ys).float().mean():.3f}")

# ---- stage 2: target task, encoder frozen ------------------------------------------------
model = nn.Sequential(encoder, CosineHead(D_FEAT, 4))
model.requires_grad_(False)                    # keep the pre-trained encoder fixed
model[1].log_scale.requires_grad_(True)        # the temperature should adapt to the new task

x_tr, y_tr = sample(1200, "target")
x_va, y_va = sample(400, "target")
loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=32, shuffle=True)
optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-2)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "train_loss", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(10):
        model.train()
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            step += 1
            if step % 10 == 0:
                model.eval()
                with torch.no_grad():
                    out = model(x_va)
                    vl = criterion(out, y_va).item()
                    va = (out.argmax(1) == y_va).float().mean().item()
                model.train()
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}"])
        print(f"epoch {epoch}  loss {loss.item():.4f}  val loss {vl:.4f}  val acc {va:.3f}")
