"""Churn-reason classifier (3 reasons) on 40 engineered account features, small labelled set."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(67)
rng = np.random.default_rng(67)

N_FEATURES, N_INFORMATIVE, N_CLASSES = 40, 8, 3
centroids = rng.normal(0, 1.0, size=(N_CLASSES, N_INFORMATIVE))


def accounts(n):
    y = rng.integers(0, N_CLASSES, n)
    x = rng.normal(0, 1.0, size=(n, N_FEATURES))
    x[:, :N_INFORMATIVE] += centroids[y]
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


x_train, y_train = accounts(300)
x_val, y_val = accounts(600)
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=32, shuffle=True)
val_loader = DataLoader(TensorDataset(x_val, y_val), batch_size=8)

model = nn.Sequential(
    nn.Linear(N_FEATURES, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
    nn.Linear(256, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
    nn.Linear(256, N_CLASSES),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()


def evaluate(net, loader):
    net.eval
    total, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            out = net(xb)
            total += criterion(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    return total / n, correct / n


with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "train_loss", "train_accuracy", "val_loss", "val_accuracy"])
    for epoch in range(25):
        model.train()
        tot, hit, n = 0.0, 0, 0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            out = model(xb)
            loss = criterion(out, yb)
            loss.backward()
            optimizer.step()
            tot += loss.item() * len(yb)
            hit += (out.argmax(1) == yb).sum().item()
            n += len(yb)
        val_loss, val_acc = evaluate(model, val_loader)
        w.writerow([epoch, f"{tot / n:.5f}", f"{hit / n:.4f}", f"{val_loss:.5f}", f"{val_acc:.4f}"])
        if epoch % 4 == 0:
            print(f"epoch {epoch:2d}  train {tot / n:.4f} / {hit / n:.3f}   val {val_loss:.4f} / {val_acc:.3f}")
