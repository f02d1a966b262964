"""Wine-quality style tabular classifier (4 grades) with heavy dropout."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(20)
rng = np.random.default_rng(20)
D, C = 16, 4
proj = rng.normal(size=(D, C))


def batch(n):
    x = rng.normal(size=(n, D))
    z = x @ proj + 0.5 * np.sin(2 * x[:, :C])
    y = (z + rng.normal(0, 1.0, z.shape)).argmax(1)
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


xtr, ytr = batch(3000)
xva, yva = batch(1000)
model = nn.Sequential(
    nn.Linear(D, 256), nn.ReLU(), nn.Dropout(0.5),
    nn.Linear(256, 256), nn.ReLU(), nn.Dropout(0.5),
    nn.Linear(256, C),
)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)
crit = nn.CrossEntropyLoss()
dl = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=True)

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "loss", "accuracy", "val_loss", "val_accuracy"])
    for epoch in range(15):
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
