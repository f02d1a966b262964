"""Human-activity recognition from 6-axis IMU windows (30 samples @ 20 Hz, 5 activities)
with a stacked LSTM; dropout after each recurrent layer and before the classifier.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(153)
torch.set_num_threads(1)

ACTS = ["walk", "run", "stairs", "sit", "cycle"]
CFG = {"epochs": 9, "batch_size": 64, "lr": 3e-3, "hidden": 48, "dropout": 0.5}


def imu(n, rng):
    t = np.arange(30) / 20.0
    freq = np.array([1.8, 2.8, 1.4, 0.0, 1.1]); amp = np.array([1.0, 1.8, 1.2, 0.05, 0.7])
    y = rng.integers(0, 5, n)
    ph = rng.uniform(0, 2 * np.pi, (n, 1, 6))
    gains = np.random.default_rng(2).uniform(0.3, 1.0, (5, 6))
    x = amp[y][:, None, None] * gains[y][:, None, :] * np.sin(2 * np.pi * freq[y][:, None, None] * t[None, :, None] + ph)
    x += rng.normal(0, 0.6, x.shape)
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


class HAR(nn.Module):
    def __init__(self):
        super().__init__()
        h, p = CFG["hidden"], CFG["dropout"]
        self.l1 = nn.LSTM(6, h, batch_first=True)
        self.d1 = nn.Dropout(p)
        self.l2 = nn.LSTM(h, h, batch_first=True)
        self.d2 = nn.Dropout(p)
        self.fc = nn.Linear(h, len(ACTS))

    def forward(self, x):
        o, _ = self.l1(x)
        o, _ = self.l2(self.d1(o))
        return self.fc(self.d2(o[:, -1]))


def main():
    rng = np.random.default_rng(153)
    x_tr, y_tr = imu(3000, rng)
    x_va, y_va = imu(800, rng)
    dl = DataLoader(TensorDataset(x_tr, y_tr), batch_size=CFG["batch_size"], shuffle=True)
    model = HAR()
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            model.train()
            tl, tc, n = 0.0, 0, 0
            for xb, yb in dl:
                out = model(xb)
                loss = F.cross_entropy(out, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                tl += loss.item() * len(yb); tc += (out.argmax(1) == yb).sum().item(); n += len(yb)
            model.eval()
            with torch.no_grad():
                o = model(x_va)
                vl = F.cross_entropy(o, y_va).item(); va = (o.argmax(1) == y_va).float().mean().item()
            w.writerow([step, epoch, f"{tl / n:.5f}", f"{tc / n:.4f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"epoch {epoch:2d}  train {tl / n:.4f} acc {tc / n:.3f}  val {vl:.4f} acc {va:.3f}")


if __name__ == "__main__":
    main()
