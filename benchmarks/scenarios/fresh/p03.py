"""Human-activity recognition from 3-axis accelerometer windows (1-D CNN)."""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)
ACTIVITIES = ["walk", "run", "sit", "stairs"]
WIN = 64


class AccelWindows(Dataset):
    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        t = np.arange(WIN) / 32.0
        self.x = np.empty((n, 3, WIN), np.float32)
        self.y = rng.integers(0, len(ACTIVITIES), n)
        for i, a in enumerate(self.y):
            f = [1.8, 2.8, 0.0, 1.2][a] * rng.uniform(0.9, 1.1)
            amp = [1.0, 2.0, 0.05, 0.8][a]
            ph = rng.uniform(0, 2 * math.pi)
            sig = amp * np.sin(2 * math.pi * f * t + ph)
            self.x[i, 0] = sig + rng.normal(0, 0.3, WIN)
            self.x[i, 1] = 0.5 * sig * (a == 3) + rng.normal(0, 0.3, WIN)
            self.x[i, 2] = 1.0 + 0.3 * sig + rng.normal(0, 0.3, WIN)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), int(self.y[i])


class HARNet(nn.Module):
    def __init__(self, n_cls):
        super().__init__()
        self.c1 = nn.Conv1d(3, 16, 5, padding=2)
        self.c2 = nn.Conv1d(16, 32, 5, padding=2)
        self.fc = nn.Linear(32, n_cls)

    def forward(self, x):
        x = F.max_pool1d(F.relu(self.c1(x)), 2)
        x = F.relu(self.c2(x))
        return self.fc(x.mean(-1))


def main():
    torch.manual_seed(3)
    train_dl = DataLoader(AccelWindows(2000, 3), batch_size=32, shuffle=True)
    val_dl = DataLoader(AccelWindows(400, 33), batch_size=200)
    model = HARNet(len(ACTIVITIES))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    crit = nn.CrossEntropyLoss()

    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "loss", "accuracy", "val_loss", "val_accuracy"])
        step = 0
        for epoch in range(8):
            model.train()
            opt.zero_grad()
            for xb, yb in train_dl:
                logits = model(xb)
                loss = crit(logits, yb)
                loss.backward()
                opt.step()
                if step % 5 == 0:
                    acc = (logits.argmax(1) == yb).float().mean().item()
                    w.writerow([step, epoch, round(loss.item(), 5), round(acc, 4), "", ""])
                step += 1
            model.eval()
            vl, vc, vn = 0.0, 0, 0
            with torch.no_grad():
                for xb, yb in val_dl:
                    o = model(xb)
                    vl += crit(o, yb).item() * len(yb)
                    vc += (o.argmax(1) == yb).sum().item()
                    vn += len(yb)
            w.writerow([step, epoch, round(loss.item(), 5), "", round(vl / vn, 5), round(vc / vn, 4)])
            print(f"epoch {epoch}  last-batch loss {loss.item():.4f}  val_loss {vl/vn:.4f}  val_acc {vc/vn:.3f}")


if __name__ == "__main__":
    main()
