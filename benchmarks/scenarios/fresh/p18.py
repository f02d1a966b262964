"""Credit-default classifier trained with a very small batch (per-step loss logged)."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(18)
rng = np.random.default_rng(18)
D = 12
w1 = rng.normal(size=(D, 8))
w2 = rng.normal(size=8)


def applicants(n):
    x = rng.normal(size=(n, D))
    s = np.tanh(x @ w1 / np.sqrt(D)) @ w2
    y = (s + rng.normal(0, 0.3, n) > 0).astype(np.int64)
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


xtr, ytr = applicants(1200)
xva, yva = applicants(600)
dl = DataLoader(TensorDataset(xtr, ytr), batch_size=4, shuffle=True)
model = nn.Sequential(nn.Linear(D, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
crit = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(6):
        for xb, yb in dl:
            model.train()
            loss = crit(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            vl = va = ""
            if step % 100 == 0:
                model.eval()
                with torch.no_grad():
                    o = model(xva)
                    vl = round(crit(o, yva).item(), 5)
                    va = round((o.argmax(1) == yva).float().mean().item(), 4)
            if step % 5 == 0:
                w.writerow([step, epoch, round(loss.item(), 5), vl, va])
            if step % 300 == 0:
                print(f"step {step:5d}  batch loss {loss.item():.4f}  val_loss {vl}  val_acc {va}")
