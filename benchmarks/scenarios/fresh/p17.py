"""Crop-yield regression from field sensors; measurements are noisy."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(17)
rng = np.random.default_rng(17)


def fields(n):
    x = rng.normal(size=(n, 8)).astype(np.float32)
    yld = np.sin(x[:, 0]) + 0.5 * x[:, 1] * x[:, 2] + 0.3 * x[:, 3] ** 2 - 0.4 * x[:, 4]
    yld = yld + rng.normal(0, 0.5, n)
    return torch.from_numpy(x), torch.from_numpy(yld.astype(np.float32)).unsqueeze(1)


xtr, ytr = fields(4000)
xva, yva = fields(1000)
dl = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=True)
model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=8, gamma=0.3)
mse = nn.MSELoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "train_loss", "val_loss", "lr"])
    for epoch in range(20):
        model.train()
        tot, n = 0.0, 0
        for xb, yb in dl:
            loss = mse(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(xb)
            n += len(xb)
        sched.step()
        model.eval()
        with torch.no_grad():
            vl = mse(model(xva), yva).item()
        w.writerow([epoch, round(tot / n, 5), round(vl, 5), sched.get_last_lr()[0]])
        print(f"epoch {epoch:2d}  train_mse {tot/n:.4f}  val_mse {vl:.4f}")
