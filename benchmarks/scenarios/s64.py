"""Identify 5 seed varieties from 10 kernel measurements (lab export, one row per kernel)."""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(64)
rng = np.random.default_rng(64)

FIELDS = ["area", "perimeter", "compactness", "length", "width", "asymmetry", "groove", "hardness",
          "moisture", "density"]
VARIETIES = ["kama", "rosa", "canadian", "durum", "spelt"]
profiles = rng.normal(0, 1.0, size=(len(VARIETIES), len(FIELDS)))


def lab_export(n_per_variety):
    """Rows come out of the LIMS query grouped by variety (ORDER BY variety)."""
    rows = []
    for v, name in enumerate(VARIETIES):
        for _ in range(n_per_variety):
            values = profiles[v] + rng.normal(0, 1.2, size=len(FIELDS))
            rows.append({"variety": name, **{k: float(x) for k, x in zip(FIELDS, values)}})
    return rows


class KernelDataset(Dataset):
    def __init__(self, rows):
        self.x = torch.tensor([[r[k] for k in FIELDS] for r in rows], dtype=torch.float32)
        self.y = torch.tensor([VARIETIES.index(r["variety"]) for r in rows])

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


train_ds = KernelDataset(lab_export(400))
val_ds = KernelDataset(lab_export(80))
train_loader = DataLoader(train_ds, batch_size=25, shuffle=False)
val_loader = DataLoader(val_ds, batch_size=len(val_ds))

model = nn.Sequential(nn.Linear(len(FIELDS), 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU(),
                      nn.Linear(64, len(VARIETIES)))
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(6):
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            if step % 4 == 0:
                with torch.no_grad():
                    vx, vy = next(iter(val_loader))
                    vout = model(vx)
                    vl = criterion(vout, vy).item()
                    va = (vout.argmax(1) == vy).float().mean().item()
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}"])
            step += 1
        print(f"epoch {epoch}  last loss {loss.item():.4f}  val loss {vl:.4f}  val acc {va:.3f}")
print(f"chance-level loss: {math.log(len(VARIETIES)):.4f}")
