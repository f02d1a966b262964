"""Image classifier with BatchNorm; 5 classes of synthetic 16x16 patterns."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(44)
rng = np.random.default_rng(44)
N_CLASSES = 5


def patterns(per_class):
    yy, xx = np.mgrid[0:16, 0:16] / 15.0
    bases = [xx, yy, 1 - xx, (xx - 0.5) ** 2 + (yy - 0.5) ** 2, xx * yy]
    imgs, labels = [], []
    for c in range(N_CLASSES):
        for _ in range(per_class):
            imgs.append(bases[c] * rng.uniform(0.8, 1.2) + rng.normal(0, 0.35, (16, 16)))
            labels.append(c)
    return torch.tensor(np.array(imgs), dtype=torch.float32)[:, None], torch.tensor(labels)


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2))


model = nn.Sequential(block(1, 16), block(16, 32), nn.Flatten(), nn.Linear(32 * 16, 64), nn.BatchNorm1d(64),
                      nn.ReLU(), nn.Linear(64, N_CLASSES))

x_train, y_train = patterns(300)
x_val, y_val = patterns(80)
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=50, shuffle=True)
val_loader = DataLoader(TensorDataset(x_val, y_val), batch_size=50)

optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()


def validate():
    total_loss, correct = 0.0, 0
    with torch.no_grad():
        for xb, yb in val_loader:
            out = model(xb)
            total_loss += criterion(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
    return total_loss / len(x_val), correct / len(x_val)


with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy"])
    for epoch in range(6):
        model.train()
        tot, hit = 0.0, 0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            out = model(xb)
            loss = criterion(out, yb)
            loss.backward()
            optimizer.step()
            tot += loss.item() * len(yb)
            hit += (out.argmax(1) == yb).sum().item()
        vl, va = validate()
        w.writerow([epoch, f"{tot / len(x_train):.5f}", f"{vl:.5f}", f"{hit / len(x_train):.4f}", f"{va:.4f}"])
        print(f"epoch {epoch}: train {tot / len(x_train):.4f} acc {hit / len(x_train):.3f} | val {vl:.4f} acc {va:.3f}")
