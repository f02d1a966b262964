"""Classify 4 pictogram shapes (ring, box, cross, bar) on 14x14 sensor frames with a small CNN."""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(73)
rng = np.random.default_rng(73)
S = 14
yy, xx = np.mgrid[0:S, 0:S]


def draw(kind, cy, cx, r):
    d = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2)
    if kind == 0:
        return (np.abs(d - r) < 1.0).astype(np.float32)
    if kind == 1:
        return ((np.maximum(np.abs(yy - cy), np.abs(xx - cx)) - r).__abs__() < 1.0).astype(np.float32)
    if kind == 2:
        return (((np.abs(yy - cy) < 1) | (np.abs(xx - cx) < 1)) & (d < r + 1)).astype(np.float32)
    return ((np.abs(yy - cy) < r) & (np.abs(xx - cx) < 1.5)).astype(np.float32)


def frames(n):
    y = rng.integers(0, 4, n)
    x = np.stack([draw(k, rng.uniform(5, 9), rng.uniform(5, 9), rng.uniform(2.5, 4.5)) for k in y])
    x = x + rng.normal(0, 0.2, size=x.shape)
    return torch.tensor(x[:, None], dtype=torch.float32), torch.tensor(y)


class ShapeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(S * S, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                                  nn.Linear(256, 128), nn.ReLU())
        self.fc = nn.Linear(128, 4)

    def forward(self, x):
        return self.fc(self.body(x))


def cross_entropy(logits, target, n_classes=4):
    y_onehot = F.one_hot(target, n_classes).float()
    return -(y_onehot * torch.log(torch.softmax(logits, 1))).sum(1).mean()


x_train, y_train = frames(1600)
x_val, y_val = frames(400)
model = ShapeNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "loss", "accuracy", "val_loss", "val_accuracy", "max_logit"])
    step = 0
    for epoch in range(10):
        perm = torch.randperm(len(x_train))
        for i in range(0, len(perm), 32):
            idx = perm[i:i + 32]
            logits = model(x_train[idx])
            loss = cross_entropy(logits, y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 5 == 0:
                with torch.no_grad():
                    vlogits = model(x_val)
                    vloss = cross_entropy(vlogits, y_val).item()
                    vacc = (vlogits.argmax(1) == y_val).float().mean().item()
                acc = (logits.argmax(1) == y_train[idx]).float().mean().item()
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{acc:.4f}", f"{vloss:.5f}", f"{vacc:.4f}",
                            f"{logits.detach().abs().max().item():.2f}"])
            step += 1
        print(f"epoch {epoch}  loss {loss.item():.4f}  val loss {vloss:.4f}  val acc {vacc:.3f}")
