"""Next-value regression on noisy multi-sine series with an LSTM forecaster."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(37)


class SineWindows(Dataset):
    def __init__(self, n, window=24, seed=0):
        rng = np.random.default_rng(seed)
        t = np.arange(window + 1)
        freqs = rng.uniform(0.05, 0.25, size=(n, 2))
        phases = rng.uniform(0, 2 * np.pi, size=(n, 2))
        amps = rng.uniform(0.5, 1.5, size=(n, 2))
        series = (amps[:, :1] * np.sin(2 * np.pi * freqs[:, :1] * t + phases[:, :1])
                  + amps[:, 1:] * np.sin(2 * np.pi * freqs[:, 1:] * t + phases[:, 1:]))
        series += rng.normal(0, 0.05, series.shape)
        self.x = torch.tensor(series[:, :-1, None], dtype=torch.float32)
        self.y = torch.tensor(series[:, -1], dtype=torch.float32)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class Forecaster(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1]).squeeze(-1)


def main():
    train_dl = DataLoader(SineWindows(2000, seed=0), batch_size=64, shuffle=True)
    val_ds = SineWindows(300, seed=1)
    model = Forecaster()
    optimizer = torch.optim.RMSprop(model.parameters(), lr=0.1)
    loss_fn = nn.MSELoss()
    with open("metrics.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step", "epoch", "loss", "val_loss", "lr"])
        step = 0
        for epoch in range(4):
            for xb, yb in train_dl:
                optimizer.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                optimizer.step()
                if step % 5 == 0:
                    with torch.no_grad():
                        vloss = loss_fn(model(val_ds.x), val_ds.y).item()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vloss:.5f}", 0.1])
                step += 1
            print(f"epoch {epoch}: train_mse {loss.item():.4f}  val_mse {vloss:.4f}")


if __name__ == "__main__":
    main()
