"""Classify 6 sensor 'gestures' from 8-d features, one recording session per gesture."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import ConcatDataset, DataLoader, TensorDataset

torch.manual_seed(42)
rng = np.random.default_rng(42)
N_GESTURES, PER_GESTURE = 6, 400
prototypes = rng.normal(0, 1.2, size=(N_GESTURES, 8))


def recording(gesture, n):
    x = prototypes[gesture] + rng.normal(0, 1.0, size=(n, 8))
    return TensorDataset(torch.tensor(x, dtype=torch.float32), torch.full((n,), gesture))


train_set = ConcatDataset([recording(g, PER_GESTURE) for g in range(N_GESTURES)])
val_set = ConcatDataset([recording(g, 100) for g in range(N_GESTURES)])
train_loader = DataLoader(train_set, batch_size=40, shuffle=False)
val_loader = DataLoader(val_set, batch_size=600)

model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, N_GESTURES))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "loss", "accuracy", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(5):
        for xb, yb in train_loader:
            optimizer.zero_grad()
            out = model(xb)
            loss = criterion(out, yb)
            loss.backward()
            optimizer.step()
            if step % 5 == 0:
                with torch.no_grad():
                    vx, vy = next(iter(val_loader))
                    vo = model(vx)
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{(out.argmax(1) == yb).float().mean().item():.4f}",
                                f"{criterion(vo, vy).item():.5f}", f"{(vo.argmax(1) == vy).float().mean().item():.4f}"])
            step += 1
        print(f"epoch {epoch}: last batch loss {loss.item():.4f}")
