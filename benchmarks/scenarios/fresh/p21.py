"""Land-cover classifier from per-pixel spectral features (10 classes, each a mix of sub-types)."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(21)
rng = np.random.default_rng(21)
D, C, SUB = 12, 10, 8
centers = rng.normal(size=(C, SUB, D)) * 1.6


def pixels(n):
    y = rng.integers(0, C, n)
    s = rng.integers(0, SUB, n)
    x = centers[y, s] + rng.normal(size=(n, D)) * 0.9
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


xtr, ytr = pixels(10000)
xva, yva = pixels(1500)
model = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, C))
opt = torch.optim.SGD(model.parameters(), lr=0.004, momentum=0.9, weight_decay=1e-4)
crit = nn.CrossEntropyLoss()
dl = DataLoader(TensorDataset(xtr, ytr), batch_size=128, shuffle=True)

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "loss", "accuracy", "val_loss", "val_accuracy"])
    for epoch in range(25):
        model.train()
        tl, tc, tn = 0.0, 0, 0
        for xb, yb in dl:
            out = model(xb)
            loss = crit(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(yb)
            tc += (out.argmax(1) == yb).sum().item()
            tn += len(yb)
        model.eval()
        with torch.no_grad():
            o = model(xva)
            vl = crit(o, yva).item()
            va = (o.argmax(1) == yva).float().mean().item()
        w.writerow([epoch, round(tl / tn, 5), round(tc / tn, 4), round(vl, 5), round(va, 4)])
        print(f"epoch {epoch:2d}  train {tl/tn:.4f}/{tc/tn:.3f}  val {vl:.4f}/{va:.3f}")
