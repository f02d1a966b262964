"""Predict machine failure class from sensor readings exported as CSV text."""
import csv
import io

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(61)
rng = np.random.default_rng(61)

SENSORS = ["temp", "vib_x", "vib_y", "pressure", "current", "rpm", "humidity", "torque"]


def export_csv(n=3000):
    """Simulate the plant's export: a few readings are dropped (empty fields)."""
    X = rng.normal(size=(n, len(SENSORS)))
    score = X[:, 0] * 1.2 - X[:, 3] + 0.7 * X[:, 1] * X[:, 4]
    y = np.digitize(score, [-1.0, 1.0])
    buf = io.StringIO()
    buf.write(",".join(SENSORS + ["label"]) + "\n")
    for row, lab in zip(X, y):
        fields = ["" if rng.random() < 0.0002 else f"{v:.4f}" for v in row]
        buf.write(",".join(fields) + f",{lab}\n")
    return buf.getvalue()


raw = np.genfromtxt(io.StringIO(export_csv()), delimiter=",", skip_header=1)
features, labels = raw[:, :-1], raw[:, -1].astype(np.int64)
mean, std = np.nanmean(features, axis=0), np.nanstd(features, axis=0)
features = ((features - mean) / std).astype(np.float32)

split = 2500
train = TensorDataset(torch.from_numpy(features[:split]), torch.from_numpy(labels[:split]))
val = TensorDataset(torch.from_numpy(features[split:]), torch.from_numpy(labels[split:]))
train_loader = DataLoader(train, batch_size=32, shuffle=True)
val_loader = DataLoader(val, batch_size=250)

model = nn.Sequential(nn.Linear(len(SENSORS), 48), nn.ReLU(), nn.Linear(48, 48), nn.ReLU(), nn.Linear(48, 3))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

metrics = open("metrics.csv", "w", newline="")
writer = csv.writer(metrics)
writer.writerow(["step", "epoch", "train_loss", "val_loss", "val_accuracy"])
step = 0
for epoch in range(5):
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        step += 1
        if step % 5 == 0:
            with torch.no_grad():
                vx, vy = next(iter(val_loader))
                vout = model(vx)
                vloss = criterion(vout, vy).item()
                vacc = (vout.argmax(1) == vy).float().mean().item()
            writer.writerow([step, epoch, f"{loss.item():.5f}", f"{vloss:.5f}", f"{vacc:.4f}"])
            print(f"step {step:4d} epoch {epoch} loss {loss.item():.4f} val_loss {vloss:.4f} val_acc {vacc:.3f}")
metrics.close()
