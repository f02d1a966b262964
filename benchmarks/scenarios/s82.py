"""Building energy-load regression: hourly kWh from 10 weather/occupancy readings."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(82)
rng = np.random.default_rng(82)

N = 5000
temp = rng.normal(15, 8, N)
humidity = rng.uniform(20, 95, N)
occupancy = rng.integers(0, 400, N).astype(float)
hour = rng.integers(0, 24, N)
extra = rng.normal(0, 1, (N, 5))
load = (120 + 0.9 * (temp - 18) ** 2 + 0.25 * occupancy + 0.3 * humidity
        + 40 * np.sin(2 * np.pi * hour / 24) + extra @ np.array([6.0, -4.0, 3.0, 0.0, 0.0])
        + rng.normal(0, 8, N))
X = np.column_stack([temp, humidity, occupancy, np.sin(2 * np.pi * hour / 24), np.cos(2 * np.pi * hour / 24), extra])

X_t = torch.tensor(X, dtype=torch.float32)
y_t = torch.tensor(load, dtype=torch.float32).unsqueeze(1)
train_ds, val_ds = random_split(TensorDataset(X_t, y_t), [4000, 1000], generator=torch.Generator().manual_seed(0))

tr_idx = torch.tensor(train_ds.indices)
x_mean, x_std = X_t[tr_idx].mean(0), X_t[tr_idx].std(0)
y_mean, y_std = y_t[tr_idx].mean(), y_t[tr_idx].std()


def prep(x, y):
    return (x - x_mean) / x_std, (y - y_mean) / y_std


train_loader = DataLoader(train_ds, batch_size=64, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=1000)

model = nn.Sequential(nn.Linear(X.shape[1], 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=2)
mse = nn.MSELoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "train_mse", "val_mse", "lr"])
    for epoch in range(25):
        model.train()
        total = 0.0
        for xb, yb in train_loader:
            xb, yb = prep(xb, yb)
            optimizer.zero_grad()
            loss = mse(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(xb)
        train_mse = total / len(train_ds)

        model.eval()
        with torch.no_grad():
            xv, yv = prep(*next(iter(val_loader)))
            val_mse = mse(model(xv), yv).item()
        scheduler.step(val_mse)
        lr = optimizer.param_groups[0]["lr"]
        w.writerow([epoch, f"{train_mse:.5f}", f"{val_mse:.5f}", f"{lr:.2e}"])
        print(f"epoch {epoch:2d}  train mse {train_mse:.4f}  val mse {val_mse:.4f}  lr {lr:.1e}")
