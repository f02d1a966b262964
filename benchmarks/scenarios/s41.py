"""Churn prediction from customer attributes."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(41)
rng = np.random.default_rng(41)
N = 5000

age = rng.integers(18, 80, N).astype(float)
income = rng.lognormal(10.8, 0.5, N)                 # yearly, in dollars
balance = rng.lognormal(9.0, 1.5, N)                 # account balance
tenure_days = rng.integers(10, 4000, N).astype(float)
n_products = rng.integers(1, 6, N).astype(float)
support_calls = rng.poisson(2.0, N).astype(float)
score = (-0.04 * (age - 45) + 0.6 * (support_calls - 2) - 0.0005 * (tenure_days - 2000)
         - 0.5 * (n_products - 3) + 0.8 * (np.log(balance) < 8.0) + rng.normal(0, 0.8, N))
churn = (score > 0.5).astype(np.int64)

features = np.column_stack([age, income, balance, tenure_days, n_products, support_calls]).astype(np.float32)
X_tr, X_va = torch.from_numpy(features[:4000]), torch.from_numpy(features[4000:])
y_tr, y_va = torch.from_numpy(churn[:4000]), torch.from_numpy(churn[4000:])
print("churn rate:", churn.mean().round(3))

loader = DataLoader(TensorDataset(X_tr, y_tr), batch_size=64, shuffle=True)
model = nn.Sequential(nn.Linear(6, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
crit = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(6):
        for xb, yb in loader:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
            if step % 10 == 0:
                with torch.no_grad():
                    vo = model(X_va)
                    w.writerow([step, epoch, f"{loss.item():.5g}", f"{crit(vo, y_va).item():.5g}",
                                f"{(vo.argmax(1) == y_va).float().mean().item():.4f}"])
            step += 1
        print(f"epoch {epoch}: loss {loss.item():.4f}")
