"""Hourly district-heating load forecast: predict the next hour's load from the last 24 hours with a GRU."""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 101
WINDOW = 24
HORIZON = 1

torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)


def simulate_load(n_hours):
    """Daily + weekly cycle, slow outdoor-temperature swings, and meter noise."""
    t = np.arange(n_hours)
    daily = 1.0 * np.sin(2 * math.pi * t / 24 + 0.3) + 0.4 * np.sin(4 * math.pi * t / 24)
    weekly = 0.5 * np.sin(2 * math.pi * t / (24 * 7))
    periods = rng.uniform(60, 240, 3)
    phases = rng.uniform(0, 2 * math.pi, 3)
    temp = sum(0.4 * np.sin(2 * math.pi * t / p + ph) for p, ph in zip(periods, phases))
    clean = daily + weekly + temp
    return clean + rng.normal(0, 0.3, n_hours)   # meter noise, sd 0.3


def calendar_features(n_hours):
    t = np.arange(n_hours)
    day = 2 * math.pi * t / 24
    week = 2 * math.pi * t / (24 * 7)
    return np.column_stack([np.sin(day), np.cos(day), np.sin(week), np.cos(week)])


def make_windows(series, calendar):
    # each input step: [load, calendar features of the hour being predicted at that offset]
    feats = np.column_stack([series[:-HORIZON], calendar[HORIZON:]])
    xs, ys = [], []
    for i in range(len(series) - WINDOW - HORIZON + 1):
        xs.append(feats[i:i + WINDOW])
        ys.append(series[i + WINDOW + HORIZON - 1])
    x = torch.tensor(np.array(xs), dtype=torch.float32)
    y = torch.tensor(np.array(ys), dtype=torch.float32)
    return x, y


series = simulate_load(4000)
calendar = calendar_features(len(series))
split = 3200
mean, std = series[:split].mean(), series[:split].std()
series = (series - mean) / std
print(f"load mean {mean:.3f}  std {std:.3f}  (noise variance after scaling: {(0.3 / std) ** 2:.4f})")

x_train, y_train = make_windows(series[:split], calendar[:split])
x_val, y_val = make_windows(series[split - WINDOW:], calendar[split - WINDOW:])
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=64, shuffle=True)


class Forecaster(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.gru = nn.GRU(5, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        h, _ = self.gru(x)
        return self.out(h[:, -1]).squeeze(-1)


model = Forecaster()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=4, gamma=0.5)
mse = nn.MSELoss()

EPOCHS = 8
with open("metrics.csv", "w", newline="") as fh:
    writer = csv.writer(fh)
    writer.writerow(["epoch", "step", "lr", "train_mse", "train_mse_min_batch", "train_mse_max_batch", "val_mse", "val_mae"])
    step = 0
    for epoch in range(EPOCHS):
        model.train()
        batch_losses = []
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = mse(model(xb), yb)
            loss.backward()
            optimizer.step()
            batch_losses.append(loss.item())
            step += 1
        lr = optimizer.param_groups[0]["lr"]
        scheduler.step()

        model.eval()
        with torch.no_grad():
            pred = model(x_val)
            val_mse = mse(pred, y_val).item()
            val_mae = (pred - y_val).abs().mean().item()
        tr = float(np.mean(batch_losses))
        writer.writerow([epoch, step, f"{lr:.2e}", f"{tr:.5f}", f"{min(batch_losses):.5f}",
                         f"{max(batch_losses):.5f}", f"{val_mse:.5f}", f"{val_mae:.5f}"])
        print(f"epoch {epoch:2d} step {step:4d} lr {lr:.1e}  train_mse {tr:.4f} "
              f"[{min(batch_losses):.3f}..{max(batch_losses):.3f}]  val_mse {val_mse:.4f}  val_mae {val_mae:.4f}")
