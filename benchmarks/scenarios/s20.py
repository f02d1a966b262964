import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

SEED = 20
torch.manual_seed(SEED)
np.random.seed(SEED)


def generate(n=3000, n_classes=4):
    """Four noisy rings in 2-D plus 6 nuisance features."""
    y = np.random.randint(0, n_classes, n)
    radius = 1.0 + y + np.random.normal(0, 0.25, n)
    theta = np.random.uniform(0, 2 * np.pi, n)
    X = np.column_stack([radius * np.cos(theta), radius * np.sin(theta), np.random.normal(size=(n, 6))])
    return X.astype(np.float32), y


class RingData(Dataset):
    def __init__(self, X, y):
        self.X = torch.from_numpy(X)
        self.y = torch.from_numpy(y).long()

    def __len__(self):
        return len(self.X)

    def __getitem__(self, i):
        return self.X[i], self.y[i]


X, y = generate()
order = np.random.permutation(len(X))
X = X[order]
n_val = 600
train_set = RingData(X[n_val:], y[n_val:])
val_set = RingData(X[:n_val], y[:n_val])
train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
val_loader = DataLoader(val_set, batch_size=600)

model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    log = csv.DictWriter(fh, fieldnames=["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy"])
    log.writeheader()
    for epoch in range(10):
        model.train()
        losses, correct = [], 0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            out = model(xb)
            loss = criterion(out, yb)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            correct += (out.argmax(1) == yb).sum().item()
        model.eval()
        with torch.no_grad():
            xv, yv = next(iter(val_loader))
            vout = model(xv)
            vloss = criterion(vout, yv).item()
            vacc = (vout.argmax(1) == yv).float().mean().item()
        row = dict(epoch=epoch, train_loss=round(float(np.mean(losses)), 5), val_loss=round(vloss, 5),
                   accuracy=round(correct / len(train_set), 4), val_accuracy=round(vacc, 4))
        log.writerow(row)
        print(row)
