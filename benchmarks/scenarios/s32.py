"""Tissue-tile classifier: 3 texture classes from a (synthetic) slide scanner."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(52)


class Tiles(Dataset):
    def __init__(self, n, seed, n_blank=0):
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, 3, n)
        yy, xx = np.mgrid[0:20, 0:20]
        self.raw = np.empty((n, 20, 20), np.float32)
        for i, c in enumerate(self.labels):
            f = rng.uniform(0.4, 0.7)
            if c == 0:
                t = np.sin(f * xx + rng.uniform(0, 6))
            elif c == 1:
                t = np.sin(f * xx) * np.sin(f * yy + rng.uniform(0, 6))
            else:
                t = (rng.random((20, 20)) < 0.15) * 2.0
            self.raw[i] = 120 + 40 * t + rng.normal(0, 15, (20, 20))
        # scanner emits some empty tiles (background) in every export
        blank = rng.choice(n, size=n_blank, replace=False)
        self.raw[blank] = 235.0

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        tile = torch.from_numpy(self.raw[i]).unsqueeze(0)
        tile = (tile - tile.mean()) / tile.std()  # per-tile standardisation
        return tile, int(self.labels[i])


net = nn.Sequential(
    nn.Conv2d(1, 12, 3, padding=1), nn.BatchNorm2d(12), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(12, 24, 3, padding=1), nn.BatchNorm2d(24), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(24 * 25, 3),
)
train_loader = DataLoader(Tiles(1600, 0, n_blank=2), batch_size=32, shuffle=True)
val_loader = DataLoader(Tiles(320, 1), batch_size=320)
opt = torch.optim.SGD(net.parameters(), lr=0.02, momentum=0.9, nesterov=True)
loss_fn = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(3):
        for tiles, labels in train_loader:
            net.train()
            loss = loss_fn(net(tiles), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 5 == 0:
                net.eval()
                with torch.no_grad():
                    vt, vl = next(iter(val_loader))
                    vo = net(vt)
                    wr.writerow([step, epoch, f"{loss.item():.5f}", f"{loss_fn(vo, vl).item():.5f}",
                                 f"{(vo.argmax(1) == vl).float().mean().item():.4f}"])
        print(f"epoch {epoch}: loss {loss.item():.4f}")
