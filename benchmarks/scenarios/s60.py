"""Defect classification on 16x16 grayscale inspection crops (scratch / pit / stain / clean).

Only 100 crops are labelled so far; 300 more form the validation split.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(60)
rng = np.random.default_rng(60)

N_CLASSES, SIZE = 4, 16
yy, xx = np.mgrid[0:SIZE, 0:SIZE]


def crop(label):
    img = rng.normal(0, 1.0, size=(SIZE, SIZE))              # sensor noise + surface texture
    cy, cx = rng.integers(4, 12, size=2)
    if label == 0:                                           # scratch: a faint line at a random angle
        a = rng.uniform(0, np.pi)
        d = np.abs((yy - cy) * np.cos(a) - (xx - cx) * np.sin(a))
        img += 0.9 * (d < 0.8)
    elif label == 1:                                         # pit: small dark blob
        img -= 1.6 * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 2.0)
    elif label == 2:                                         # stain: broad faint bright patch
        img += 0.6 * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 12.0)
    return img


def make_set(n):
    y = rng.integers(0, N_CLASSES, n)
    x = np.stack([crop(c) for c in y])[:, None].astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y)


x_tr, y_tr = make_set(100)
x_va, y_va = make_set(300)
loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=20, shuffle=True)

model = nn.Sequential(
    nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(64 * 4 * 4, 512), nn.ReLU(),
    nn.Linear(512, N_CLASSES),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()


def evaluate(x, y):
    model.eval()
    with torch.no_grad():
        out = model(x)
    return criterion(out, y).item(), (out.argmax(1) == y).float().mean().item()


with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "train_loss", "val_loss", "train_acc", "val_acc"])
    for epoch in range(25):
        model.train()
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
        tl, ta = evaluate(x_tr, y_tr)
        vl, va = evaluate(x_va, y_va)
        w.writerow([epoch, f"{tl:.5f}", f"{vl:.5f}", f"{ta:.4f}", f"{va:.4f}"])
        if epoch % 5 == 4:
            print(f"epoch {epoch:2d}  train {tl:.4f} ({ta:.3f})  val {vl:.4f} ({va:.3f})")
