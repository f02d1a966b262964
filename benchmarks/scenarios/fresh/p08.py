"""Predict daily energy use of a building from weather + calendar features."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)
SEED = 8


class EnergyDays(Dataset):
    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        temp = rng.normal(15, 8, n)
        hum = rng.uniform(20, 90, n)
        dow = rng.integers(0, 7, n)
        occ = rng.uniform(0, 1, n)
        kwh = (0.02 * (temp - 18) ** 2 + 0.01 * hum + 2.0 * occ * (dow < 5) + 0.3 * np.sin(dow) + 1.0)
        kwh = kwh + rng.normal(0, 0.1, n)
        feats = np.stack([(temp - 15) / 8, (hum - 55) / 20, np.sin(2 * np.pi * dow / 7),
                          np.cos(2 * np.pi * dow / 7), (dow < 5).astype(float), occ], 1)
        self.x = torch.tensor(feats, dtype=torch.float32)
        self.y = torch.tensor((kwh - 3.0) / 1.5, dtype=torch.float32)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def main():
    torch.manual_seed(SEED)
    train_ds, val_ds = EnergyDays(3000, SEED), EnergyDays(600, SEED + 1)
    train_dl = DataLoader(train_ds, batch_size=64, shuffle=True)
    val_dl = DataLoader(val_ds, batch_size=256)
    model = nn.Sequential(nn.Linear(6, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU(), nn.Linear(64, 1))
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    mse = nn.MSELoss()
    print(f"target variance (train): {train_ds.y.var().item():.4f}")

    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "train_loss", "val_loss", "val_mae"])
        for epoch in range(15):
            model.train()
            tot, n = 0.0, 0
            for xb, yb in train_dl:
                pred = model(xb)
                loss = mse(pred, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                tot += loss.item() * len(yb)
                n += len(yb)
            model.eval()
            vt, vm, vn = 0.0, 0.0, 0
            with torch.no_grad():
                for xb, yb in val_dl:
                    pred = model(xb)
                    vt += mse(pred, yb).item() * len(yb)
                    vm += (pred.squeeze(1) - yb).abs().sum().item()
                    vn += len(yb)
            w.writerow([epoch, round(tot / n, 5), round(vt / vn, 5), round(vm / vn, 5)])
            print(f"epoch {epoch:2d}  train_loss {tot/n:.4f}  val_loss {vt/vn:.4f}  val_mae {vm/vn:.4f}")


if __name__ == "__main__":
    main()
