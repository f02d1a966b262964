"""Heteroscedastic regression: the net predicts mean and log-variance, trained with Gaussian NLL."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(22)
rng = np.random.default_rng(22)


def gen(n):
    x = rng.uniform(-3, 3, (n, 1))
    sigma = 0.05 + 0.1 * np.abs(x)
    y = np.sin(x) + 0.3 * x + rng.normal(size=(n, 1)) * sigma
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)


class MeanVar(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh())
        self.mu = nn.Linear(64, 1)
        self.logvar = nn.Linear(64, 1)

    def forward(self, x):
        h = self.body(x)
        return self.mu(h), self.logvar(h).clamp(-10, 5)


xtr, ytr = gen(3000)
xva, yva = gen(800)
model = MeanVar()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
nll = nn.GaussianNLLLoss()
dl = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=True)

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "loss", "val_loss", "val_mse"])
    for epoch in range(25):
        model.train()
        tot, n = 0.0, 0
        for xb, yb in dl:
            mu, lv = model(xb)
            loss = nll(mu, yb, lv.exp())
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(xb)
            n += len(xb)
        model.eval()
        with torch.no_grad():
            mu, lv = model(xva)
            vl = nll(mu, yva, lv.exp()).item()
            vm = ((mu - yva) ** 2).mean().item()
        w.writerow([epoch, round(tot / n, 5), round(vl, 5), round(vm, 5)])
        print(f"epoch {epoch:2d}  nll {tot/n:.4f}  val_nll {vl:.4f}  val_mse {vm:.4f}")
