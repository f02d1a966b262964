"""Credit-default style classifier on 30 features."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, random_split, TensorDataset

torch.manual_seed(35)
rng = np.random.default_rng(35)

N, D = 5000, 30
X = rng.normal(size=(N, D)).astype(np.float32)
w = rng.normal(size=D) * (rng.random(D) < 0.4)
logit = X @ w + 1.5 * np.sin(X[:, 0] * 2) + X[:, 1] * X[:, 2]
Y = (logit > np.median(logit)).astype(np.int64)

full = TensorDataset(torch.from_numpy(X), torch.from_numpy(Y))
train_set, val_set = random_split(full, [4000, 1000], generator=torch.Generator().manual_seed(35))
train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
val_loader = DataLoader(val_set, batch_size=1000)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(D, 256), nn.ReLU(), nn.Dropout(0.7),
            nn.Linear(256, 256), nn.ReLU(), nn.Dropout(0.7),
            nn.Linear(256, 2),
        )

    def forward(self, x):
        return self.layers(x)


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=0.05)
criterion = nn.CrossEntropyLoss(label_smoothing=0.3)


def evaluate(loader):
    model.eval()
    tot, hit, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            out = model(xb)
            tot += criterion(out, yb).item() * len(yb)
            hit += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    return tot / n, hit / n


with open("metrics.csv", "w", newline="") as f:
    log = csv.writer(f)
    log.writerow(["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy", "lr"])
    for epoch in range(10):
        model.train()
        for xb, yb in train_loader:
            optimizer.zero_grad()
            criterion(model(xb), yb).backward()
            optimizer.step()
        tl, ta = evaluate(train_loader)
        vl, va = evaluate(val_loader)
        log.writerow([epoch, round(tl, 5), round(vl, 5), round(ta, 4), round(va, 4), 0.05])
        print(f"epoch {epoch}: train {tl:.4f} acc {ta:.3f} | val {vl:.4f} acc {va:.3f}")
