"""Loan default prediction: logistic regression on 6 raw applicant fields, standardised with train statistics."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(58)
rng = np.random.default_rng(58)

FIELDS = ["income", "age", "debt_ratio", "open_lines", "months_employed", "late_payments"]


def make_applicants(n):
    income = rng.lognormal(10.8, 0.5, n)
    age = rng.uniform(21, 70, n)
    debt_ratio = rng.beta(2, 5, n)
    open_lines = rng.poisson(6, n).astype(float)
    months_employed = rng.exponential(60, n)
    late = rng.poisson(0.8, n).astype(float)
    score = (-1.6 * (np.log(income) - 10.8) / 0.5 - 0.02 * (age - 45) + 9.0 * (debt_ratio - 0.29)
             + 0.08 * (open_lines - 6) - 0.012 * (months_employed - 60) + 1.1 * (late - 0.8) - 1.0)
    default = (rng.random(n) < 1 / (1 + np.exp(-2.0 * score))).astype(np.float32)
    x = np.stack([income, age, debt_ratio, open_lines, months_employed, late], axis=1)
    return x, default


x_tr, y_tr = make_applicants(4000)
x_va, y_va = make_applicants(1000)

# standard scaling, fitted on the training split only
mu, sigma = x_tr.mean(axis=0), x_tr.std(axis=0)
x_tr, x_va = (x_tr - mu) / sigma, (x_va - mu) / sigma

to_t = lambda a: torch.tensor(a, dtype=torch.float32)
train_loader = DataLoader(TensorDataset(to_t(x_tr), to_t(y_tr)), batch_size=64, shuffle=True)
xv, yv = to_t(x_va), to_t(y_va)

model = nn.Linear(len(FIELDS), 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.BCEWithLogitsLoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy"])
    for epoch in range(20):
        tot, hit = 0.0, 0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            logit = model(xb).squeeze(1)
            loss = criterion(logit, yb)
            loss.backward()
            optimizer.step()
            tot += loss.item() * len(yb)
            hit += ((logit > 0).float() == yb).sum().item()
        with torch.no_grad():
            vlogit = model(xv).squeeze(1)
            vl = criterion(vlogit, yv).item()
            va = ((vlogit > 0).float() == yv).float().mean().item()
        tl, ta = tot / len(y_tr), hit / len(y_tr)
        w.writerow([epoch, f"{tl:.5f}", f"{vl:.5f}", f"{ta:.4f}", f"{va:.4f}"])
        print(f"epoch {epoch:2d}  train {tl:.4f} ({ta:.3f})  val {vl:.4f} ({va:.3f})")

print("weights:", dict(zip(FIELDS, model.weight.detach().squeeze().numpy().round(2))))
print(f"default rate: train {y_tr.mean():.3f}  val {y_va.mean():.3f}")
