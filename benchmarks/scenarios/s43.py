"""Binary defect detector on 20 process measurements."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(43)
rng = np.random.default_rng(43)

N, D = 4000, 20
X = rng.normal(size=(N, D)).astype(np.float32)
w = rng.normal(size=D) * 1.5
y = (X @ w > 0).astype(np.float32)
# a few inspection labels are wrong
flip = rng.random(N) < 0.02
y[flip] = 1 - y[flip]

X_t, y_t = torch.from_numpy(X), torch.from_numpy(y)
loader = DataLoader(TensorDataset(X_t[:3200], y_t[:3200]), batch_size=64, shuffle=True)
Xv, yv = X_t[3200:], y_t[3200:]


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 1))

    def forward(self, x):
        return torch.sigmoid(self.net(x)).squeeze(-1)


def log_loss(p, target):
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


model = Detector()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)

with open("metrics.csv", "w", newline="") as f:
    w_ = csv.writer(f)
    w_.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(8):
        for xb, yb in loader:
            loss = log_loss(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 10 == 0:
                with torch.no_grad():
                    pv = model(Xv)
                    w_.writerow([step, epoch, f"{loss.item():.5g}", f"{log_loss(pv, yv).item():.5g}",
                                 f"{((pv > 0.5).float() == yv).float().mean().item():.4f}"])
            step += 1
        print(f"epoch {epoch}: loss {loss.item():.4f}")
