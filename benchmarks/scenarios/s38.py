"""Tabular regression (18 features) trained for a fixed budget of 600 steps."""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(38)
rng = np.random.default_rng(38)

N, D = 8000, 18
X = rng.normal(size=(N, D)).astype(np.float32)
beta = rng.normal(size=D)
y = (X @ beta + 0.5 * np.sin(X[:, 0] * 1.5) + rng.normal(0, 1.0, N)).astype(np.float32)
y = (y - y.mean()) / y.std()
X_tr, y_tr = torch.from_numpy(X[:6000]), torch.from_numpy(y[:6000])
X_va, y_va = torch.from_numpy(X[6000:]), torch.from_numpy(y[6000:])

model = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss_fn = nn.MSELoss()

TOTAL_STEPS, BATCH = 600, 16
with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "train_loss", "val_loss", "lr"])
    for step in range(TOTAL_STEPS):
        idx = torch.randint(0, len(X_tr), (BATCH,))
        pred = model(X_tr[idx]).squeeze(1)
        loss = loss_fn(pred, y_tr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            with torch.no_grad():
                val = loss_fn(model(X_va).squeeze(1), y_va).item()
            w.writerow([step, f"{loss.item():.5f}", f"{val:.5f}", opt.param_groups[0]["lr"]])
        if step % 100 == 0:
            print(f"step {step}: train {loss.item():.4f}  val {val:.4f}")
print(f"final val mse {val:.4f}")
