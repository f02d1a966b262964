"""Which of 7 stations (arranged around a ring road) a GPS fix belongs to."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

N_STATIONS = 7
torch.manual_seed(52)
rng = np.random.default_rng(52)

angles = 2 * np.pi * np.arange(N_STATIONS) / N_STATIONS
stations = np.stack([np.cos(angles), np.sin(angles)], 1) * 3.0
station_id = rng.integers(0, N_STATIONS, 4200)
fixes = stations[station_id] + rng.normal(0, 1.0, (4200, 2))

X = torch.tensor(fixes, dtype=torch.float32)
Y = torch.tensor(station_id, dtype=torch.float32)
train_loader = DataLoader(TensorDataset(X[:3500], Y[:3500]), batch_size=50, shuffle=True)
X_val, Y_val = X[3500:], Y[3500:]

model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
criterion = nn.MSELoss()


def accuracy(pred, target):
    return (pred.round().clamp(0, N_STATIONS - 1) == target).float().mean().item()


with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy"])
    for epoch in range(12):
        model.train()
        tot, acc, n = 0.0, 0.0, 0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            pred = model(xb).squeeze(1)
            loss = criterion(pred, yb)
            loss.backward()
            optimizer.step()
            tot += loss.item() * len(yb)
            acc += accuracy(pred.detach(), yb) * len(yb)
            n += len(yb)
        model.eval()
        with torch.no_grad():
            pv = model(X_val).squeeze(1)
            vl, va = criterion(pv, Y_val).item(), accuracy(pv, Y_val)
        w.writerow([epoch, f"{tot / n:.5f}", f"{vl:.5f}", f"{acc / n:.4f}", f"{va:.4f}"])
        print(f"epoch {epoch:2d}  train_mse {tot / n:.4f} acc {acc / n:.3f} | val_mse {vl:.4f} acc {va:.3f}")
