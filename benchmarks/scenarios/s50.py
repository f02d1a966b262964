"""CNN with BatchNorm, flip augmentation, SGD+momentum and a per-epoch step schedule."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(50)
N_CLASSES = 6


class Glyphs(Dataset):
    def __init__(self, n, seed, augment=False):
        rng = np.random.default_rng(seed)
        yy, xx = np.mgrid[0:16, 0:16]
        self.y = rng.integers(0, N_CLASSES, n)
        self.x = np.empty((n, 1, 16, 16), np.float32)
        for i, c in enumerate(self.y):
            cx, cy = rng.uniform(5, 11, 2)
            r = np.hypot(xx - cx, yy - cy)
            ring = np.exp(-((r - (2 + c)) ** 2) / 1.5)
            self.x[i, 0] = ring + rng.normal(0, 0.4, (16, 16))
        self.augment = augment
        self.rng = np.random.default_rng(seed + 1)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        img = self.x[i]
        if self.augment and self.rng.random() < 0.5:
            img = img[:, :, ::-1].copy()
        return torch.from_numpy(img), int(self.y[i])


def conv_bn(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


model = nn.Sequential(conv_bn(1, 16), nn.MaxPool2d(2), conv_bn(16, 32), nn.MaxPool2d(2),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, N_CLASSES))
train_loader = DataLoader(Glyphs(1500, 0, augment=True), batch_size=50, shuffle=True)
val_loader = DataLoader(Glyphs(300, 100), batch_size=150)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.3)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy", "lr"])
    for epoch in range(7):
        model.train()
        tl, tc, tn = 0.0, 0, 0
        for x, y in train_loader:
            optimizer.zero_grad()
            out = model(x)
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()
            tl += loss.item() * len(y)
            tc += (out.argmax(1) == y).sum().item()
            tn += len(y)
        lr = optimizer.param_groups[0]["lr"]
        scheduler.step()
        model.eval()
        vl, vc, vn = 0.0, 0, 0
        with torch.no_grad():
            for x, y in val_loader:
                out = model(x)
                vl += criterion(out, y).item() * len(y)
                vc += (out.argmax(1) == y).sum().item()
                vn += len(y)
        w.writerow([epoch, f"{tl / tn:.5f}", f"{vl / vn:.5f}", f"{tc / tn:.4f}", f"{vc / vn:.4f}", lr])
        print(f"epoch {epoch}  lr {lr:.3f}  train {tl / tn:.4f}/{tc / tn:.3f}  val {vl / vn:.4f}/{vc / vn:.3f}")
