"""Predicting a lab assay outcome (2 classes) from 40 spectral features; 90 labelled samples."""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(12)
rng = np.random.default_rng(12)

D = 40
w_true = np.zeros(D)
w_true[:4] = [1.2, -0.9, 0.7, 0.5]


def sample(n):
    x = rng.normal(size=(n, D))
    p = 1 / (1 + np.exp(-(x @ w_true)))
    y = (rng.random(n) < p).astype(np.int64)
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


x_tr, y_tr = sample(90)
x_va, y_va = sample(400)

model = nn.Sequential(nn.Linear(D, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "loss", "accuracy", "val_loss", "val_accuracy"])
    for epoch in range(300):
        model.train()
        perm = torch.randperm(len(x_tr))
        for i in range(0, len(x_tr), 32):
            idx = perm[i:i + 32]
            loss = crit(model(x_tr[idx]), y_tr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        if epoch % 5 == 0 or epoch == 299:
            model.eval()
            with torch.no_grad():
                o = model(x_tr)
                tl, ta = crit(o, y_tr).item(), (o.argmax(1) == y_tr).float().mean().item()
                o = model(x_va)
                vl, va = crit(o, y_va).item(), (o.argmax(1) == y_va).float().mean().item()
            w.writerow([epoch, round(tl, 5), round(ta, 4), round(vl, 5), round(va, 4)])
            if epoch % 25 == 0 or epoch == 299:
                print(f"epoch {epoch:3d}  loss {tl:.4f} acc {ta:.3f}  val_loss {vl:.4f} val_acc {va:.3f}")
