"""Recognise 6 stencilled glyphs on noisy 10x10 inspection-camera crops with a two-hidden-layer MLP."""
import csv
import math

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(71)
rng = np.random.default_rng(71)

SIDE, N_CLASSES = 10, 6
glyphs = (rng.random((N_CLASSES, SIDE, SIDE)) < 0.35).astype(np.float32)


def crops(n):
    labels = rng.integers(0, N_CLASSES, n)
    imgs = glyphs[labels].copy()
    for i in range(n):
        imgs[i] = np.roll(imgs[i], shift=(rng.integers(-1, 2), rng.integers(-1, 2)), axis=(0, 1))
    imgs = imgs * rng.uniform(0.6, 1.0, size=(n, 1, 1)) + rng.normal(0, 0.35, size=imgs.shape)
    return torch.tensor(imgs.reshape(n, -1), dtype=torch.float32), torch.tensor(labels)


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.zeros_(m.weight)
        nn.init.zeros_(m.bias)


model = nn.Sequential(
    nn.Linear(SIDE * SIDE, 128), nn.Sigmoid(),
    nn.Linear(128, 64), nn.Sigmoid(),
    nn.Linear(64, N_CLASSES),
)
model.apply(init_weights)

x_train, y_train = crops(2000)
x_val, y_val = crops(500)
optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
criterion = nn.CrossEntropyLoss()
BATCH = 50

with open("metrics.csv", "w", newline="") as fh:
    writer = csv.DictWriter(fh, fieldnames=["epoch", "loss", "accuracy", "val_loss", "val_accuracy"])
    writer.writeheader()
    for epoch in range(30):
        perm = torch.randperm(len(x_train))
        total, correct = 0.0, 0
        for i in range(0, len(perm), BATCH):
            idx = perm[i:i + BATCH]
            logits = model(x_train[idx])
            loss = criterion(logits, y_train[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(idx)
            correct += (logits.argmax(1) == y_train[idx]).sum().item()
        with torch.no_grad():
            v = model(x_val)
            val_loss = criterion(v, y_val).item()
            val_acc = (v.argmax(1) == y_val).float().mean().item()
        row = {"epoch": epoch, "loss": round(total / len(perm), 5), "accuracy": round(correct / len(perm), 4),
               "val_loss": round(val_loss, 5), "val_accuracy": round(val_acc, 4)}
        writer.writerow(row)
        print(row)
print(f"chance-level loss: {math.log(N_CLASSES):.4f}")
