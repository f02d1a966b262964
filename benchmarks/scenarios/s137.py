"""Solar-inverter daily yield regression.

Predicts the next day's energy yield (kWh, standardised) of a rooftop PV installation from
irradiance forecast, panel temperature, cloud cover and a few plant descriptors.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(137)
torch.set_num_threads(1)

CFG = {"epochs": 12, "batch_size": 32, "lr": 1e-3, "hidden": 64, "n_train": 3000, "n_val": 600}


def synth(n, rng):
    irr = rng.uniform(0.5, 8.0, n)            # kWh/m2/day forecast
    cloud = rng.uniform(0, 1, n)
    temp = rng.normal(25, 8, n)
    kwp = rng.uniform(3, 12, n)
    tilt = rng.uniform(5, 45, n)
    age = rng.uniform(0, 15, n)
    y = kwp * irr * (1 - 0.6 * cloud) * (1 - 0.004 * (temp - 25)) * (1 - 0.005 * age) \
        * np.cos(np.radians(tilt - 30)) + rng.normal(0, 1.0, n)
    x = np.stack([irr, cloud, temp, kwp, tilt, age], 1)
    return x, y


class YieldDataset(Dataset):
    def __init__(self, x, y):
        self.x = torch.tensor(x, dtype=torch.float32)
        self.y = torch.tensor(y, dtype=torch.float32).unsqueeze(1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def main():
    rng = np.random.default_rng(137)
    x_tr, y_tr = synth(CFG["n_train"], rng)
    x_va, y_va = synth(CFG["n_val"], rng)
    mu, sd = x_tr.mean(0), x_tr.std(0)
    ym, ys = y_tr.mean(), y_tr.std()
    train_ds = YieldDataset((x_tr - mu) / sd, (y_tr - ym) / ys)
    val_ds = YieldDataset((x_va - mu) / sd, (y_va - ym) / ys)
    train_dl = DataLoader(train_ds, batch_size=CFG["batch_size"], shuffle=True)

    h = CFG["hidden"]
    model = nn.Sequential(nn.Linear(6, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 1))
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    crit = nn.MSELoss()
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_mae_kwh"])
        for epoch in range(CFG["epochs"]):
            model.train()
            for xb, yb in train_dl:
                pred = model(xb).squeeze()
                loss = crit(pred, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if step % 20 == 0:
                    model.eval()
                    with torch.no_grad():
                        pv = model(val_ds.x).squeeze()
                        vl = crit(pv, val_ds.y).item()
                        mae = (pv - val_ds.y.squeeze()).abs().mean().item() * ys
                    model.train()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{mae:.3f}"])
            print(f"epoch {epoch:2d} step {step}  train {loss.item():.4f}  val {vl:.4f}  MAE {mae:.2f} kWh")


if __name__ == "__main__":
    main()
