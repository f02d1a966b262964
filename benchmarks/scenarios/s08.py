"""Tabular classifier: 60 measured features, binary outcome."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(8)
rng = np.random.default_rng(8)

N_TRAIN, N_VAL, N_FEAT = 160, 600, 60

w_true = np.zeros(N_FEAT)
w_true[:6] = rng.normal(0, 1.5, 6)


def sample(n):
    X = rng.normal(size=(n, N_FEAT)).astype(np.float32)
    logits = X @ w_true + 0.8 * X[:, 0] * X[:, 1]
    y = (logits + rng.logistic(size=n) > 0).astype(np.int64)
    return torch.from_numpy(X), torch.from_numpy(y)


X_tr, y_tr = sample(N_TRAIN)
X_va, y_va = sample(N_VAL)
train_loader = DataLoader(TensorDataset(X_tr, y_tr), batch_size=32, shuffle=True)

model = nn.Sequential(
    nn.Linear(N_FEAT, 512), nn.ReLU(),
    nn.Linear(512, 512), nn.ReLU(),
    nn.Linear(512, 2),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()


def evaluate(X, y):
    model.eval()
    with torch.no_grad():
        out = model(X)
        return crit(out, y).item(), (out.argmax(1) == y).float().mean().item()


with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy"])
    for epoch in range(60):
        model.train()
        for xb, yb in train_loader:
            opt.zero_grad()
            crit(model(xb), yb).backward()
            opt.step()
        tr_loss, tr_acc = evaluate(X_tr, y_tr)
        va_loss, va_acc = evaluate(X_va, y_va)
        wr.writerow([epoch, f"{tr_loss:.5f}", f"{va_loss:.5f}", f"{tr_acc:.4f}", f"{va_acc:.4f}"])
        if epoch % 5 == 0 or epoch == 59:
            print(f"epoch {epoch:02d}  train {tr_loss:.4f} ({tr_acc:.1%})  val {va_loss:.4f} ({va_acc:.1%})")
