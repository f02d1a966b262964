"""Predict delivery time (minutes) from 12 order/route features with a 3-layer MLP."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def load_orders(n=6000, seed=51):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 12)).astype(np.float32)
    minutes = 35 + 8 * x[:, 0] + 5 * x[:, 1] - 3 * x[:, 2] * x[:, 3] + 4 * np.abs(x[:, 4]) + rng.normal(0, 3, n)
    return torch.from_numpy(x), torch.from_numpy(minutes.astype(np.float32))


torch.manual_seed(51)
x, y = load_orders()
train_loader = DataLoader(TensorDataset(x[:5000], y[:5000]), batch_size=100, shuffle=True)
x_val, y_val = x[5000:], y[5000:]

model = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
criterion = nn.MSELoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "train_loss", "val_loss", "grad_norm", "lr"])
    step = 0
    for epoch in range(5):
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(xb).squeeze(1), yb)
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=float("inf")).item()
            optimizer.step()
            if step % 5 == 0:
                with torch.no_grad():
                    vl = criterion(model(x_val).squeeze(1), y_val).item()
                w.writerow([step, epoch, f"{loss.item():.6g}", f"{vl:.6g}", f"{gn:.6g}", 0.05])
            step += 1
        print(f"epoch {epoch}: train_mse {loss.item():.4g}  val_mse {vl:.4g}")
