"""Spatial transcriptomics: predict log-expression of 10 marker genes from the H&E patch
around each spot (16x16 RGB crops) with a small CNN.

Each crop is standardised per spot (stain intensity varies across the slide).
"""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(145)
torch.set_num_threads(1)

N_GENES = 10
CFG = {"epochs": 8, "batch_size": 32, "lr": 1e-3}


def make_slide(n, rng):
    w = np.random.default_rng(3).normal(0, 1, (3, N_GENES))
    crops = np.empty((n, 3, 16, 16), dtype=np.float32)
    expr = np.empty((n, N_GENES), dtype=np.float32)
    for k in range(n):
        if rng.random() < 0.03:                      # spot outside the tissue: blank background
            crops[k] = 0.92
            expr[k] = 0.0
            continue
        stain = rng.dirichlet([2, 2, 2])
        base = rng.uniform(0.3, 0.8)
        crops[k] = base * stain[:, None, None] + rng.normal(0, 0.08, (3, 16, 16))
        expr[k] = np.log1p(np.exp(stain @ w * 1.5))
    return crops, expr


class SpotDataset(Dataset):
    def __init__(self, crops, expr):
        self.crops, self.expr = crops, expr

    def __len__(self):
        return len(self.crops)

    def __getitem__(self, k):
        c = self.crops[k]
        c = (c - c.mean()) / c.std()
        return torch.from_numpy(c), torch.from_numpy(self.expr[k])


def main():
    rng = np.random.default_rng(145)
    tr = SpotDataset(*make_slide(2400, rng))
    va = SpotDataset(*make_slide(500, rng))
    tr_dl = DataLoader(tr, batch_size=CFG["batch_size"], shuffle=True)
    va_dl = DataLoader(va, batch_size=256)
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, N_GENES))
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    crit = nn.MSELoss()
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss"])
        for epoch in range(CFG["epochs"]):
            model.train()
            for xb, yb in tr_dl:
                loss = crit(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if step % 15 == 0:
                    model.eval()
                    with torch.no_grad():
                        vl = np.mean([crit(model(xv), yv).item() for xv, yv in va_dl])
                    model.train()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}"])
            print(f"epoch {epoch} step {step}  train {loss.item():.4f}  val {vl:.4f}")


if __name__ == "__main__":
    main()
