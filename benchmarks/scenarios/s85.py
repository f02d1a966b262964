"""Low-cost PM2.5 sensor calibration against a reference monitor (co-location campaign)."""
import csv
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

SEED = 85
BATCH_SIZE = 64
EPOCHS = 30
LR = 1e-3


class ColocationData(Dataset):
    """Raw sensor counts plus met readings -> reference-grade PM2.5 (ug/m3)."""

    def __init__(self, n, rng):
        raw = rng.gamma(2.0, 9.0, n)                  # optical particle counter, arbitrary units
        rh = rng.uniform(25, 98, n)                   # relative humidity %
        temp = rng.normal(12, 7, n)                   # deg C
        wind = rng.weibull(2.0, n) * 4.0              # m/s
        hour = rng.integers(0, 24, n)
        # hygroscopic growth inflates optical readings at high humidity
        growth = 1.0 + 0.8 * (rh / 100.0) ** 3
        ref = (0.62 * raw / growth + 0.04 * temp - 0.6 * np.log1p(wind)
               + 1.5 * np.sin(2 * np.pi * hour / 24) + 2.0)
        ref = ref + rng.normal(0, 2.0, n)             # reference monitor has its own measurement error
        feats = np.column_stack([raw, rh, temp, wind,
                                 np.sin(2 * np.pi * hour / 24), np.cos(2 * np.pi * hour / 24)])
        self.x = torch.tensor(feats, dtype=torch.float32)
        self.y = torch.tensor(ref, dtype=torch.float32).unsqueeze(1)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def normalise(self, mean, std):
        self.x = (self.x - mean) / std


def build_model(d_in):
    return nn.Sequential(
        nn.Linear(d_in, 64), nn.ReLU(),
        nn.Linear(64, 64), nn.ReLU(),
        nn.Linear(64, 1),
    )


def run_epoch(model, loader, loss_fn, optimizer=None):
    training = optimizer is not None
    model.train(training)
    total, n = 0.0, 0
    with torch.set_grad_enabled(training):
        for xb, yb in loader:
            loss = loss_fn(model(xb), yb)
            if training:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total += loss.item() * len(yb)
            n += len(yb)
    return total / n


def main():
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    train_ds = ColocationData(6000, rng)
    val_ds = ColocationData(1500, rng)
    mean, std = train_ds.x.mean(0), train_ds.x.std(0)
    train_ds.normalise(mean, std)
    val_ds.normalise(mean, std)

    train_loader = DataLoader(train_ds, batch_size=BATCH_SIZE, shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=500)

    model = build_model(train_ds.x.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    loss_fn = nn.MSELoss()

    t0 = time.time()
    with open("metrics.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["epoch", "train_mse", "val_mse", "val_rmse"])
        for epoch in range(1, EPOCHS + 1):
            tr = run_epoch(model, train_loader, loss_fn, optimizer)
            va = run_epoch(model, val_loader, loss_fn)
            writer.writerow([epoch, f"{tr:.4f}", f"{va:.4f}", f"{va ** 0.5:.4f}"])
            print(f"epoch {epoch:2d} | train mse {tr:8.3f} | val mse {va:8.3f} | val rmse {va ** 0.5:.3f} ug/m3")
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
