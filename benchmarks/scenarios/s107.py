# Wrist gesture recognition (swipe-left / swipe-right / circle / shake / tap) from 3-axis
# accelerometer traces sampled at 25 Hz, 30 samples per gesture. Small GRU classifier.
import csv
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(107)
rng = np.random.default_rng(107)

GESTURES = ["swipe_left", "swipe_right", "circle", "shake", "tap"]
T = 30
config = {
    "hidden": 32,
    "batch_size": 2,
    "lr": 0.1,
    "momentum": 0.9,
    "epochs": 2,
    "eval_every": 100,
}


def gesture_trace(g):
    t = np.linspace(0, 1, T)
    speed = rng.uniform(0.8, 1.25)
    onset = rng.uniform(0.0, 0.25)
    u = np.clip((t - onset) * speed / 0.7, 0, 1)
    amp = rng.uniform(0.7, 1.3)
    x = np.zeros((T, 3))
    if g == 0:
        x[:, 0] = -amp * np.sin(np.pi * u)
    elif g == 1:
        x[:, 0] = amp * np.sin(np.pi * u)
    elif g == 2:
        x[:, 0] = amp * np.sin(2 * np.pi * u) * (u > 0)
        x[:, 1] = amp * np.cos(2 * np.pi * u) * (u > 0) * (u < 1)
    elif g == 3:
        x[:, 1] = amp * np.sin(6 * np.pi * u) * (u > 0) * (u < 1)
    else:
        x[:, 2] = amp * 2.0 * np.exp(-((u - 0.5) / 0.08) ** 2)
    x[:, 2] += 1.0  # gravity
    x += rng.normal(0, 0.35, x.shape)
    return x


def build(n):
    labels = rng.integers(0, len(GESTURES), n)
    xs = np.stack([gesture_trace(g) for g in labels]).astype(np.float32)
    return torch.from_numpy(xs), torch.from_numpy(labels).long()


x_train, y_train = build(1000)
x_val, y_val = build(500)
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=config["batch_size"], shuffle=True)


class GestureGRU(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.gru = nn.GRU(3, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, len(GESTURES))

    def forward(self, x):
        _, h = self.gru(x)
        return self.fc(h[-1])


model = GestureGRU(config["hidden"])
optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=config["momentum"])
loss_fn = nn.CrossEntropyLoss()


def validate():
    model.eval()
    with torch.no_grad():
        logits = model(x_val)
        loss = loss_fn(logits, y_val).item()
        acc = (logits.argmax(1) == y_val).float().mean().item()
    model.train()
    return loss, acc


out = open("metrics.csv", "w", newline="")
writer = csv.writer(out)
writer.writerow(["step", "epoch", "train_loss", "train_loss_min", "train_loss_max", "val_loss", "val_acc"])
step = 0
recent = []
model.train()
for epoch in range(config["epochs"]):
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        step += 1
        recent.append(loss.item())
        if step % config["eval_every"] == 0:
            val_loss, val_acc = validate()
            mean_loss = sum(recent) / len(recent)
            writer.writerow([step, epoch, f"{mean_loss:.4f}", f"{min(recent):.4f}", f"{max(recent):.4f}",
                             f"{val_loss:.4f}", f"{val_acc:.4f}"])
            print(f"step {step:5d} ep {epoch}  train {mean_loss:.4f} (min {min(recent):.3f} max {max(recent):.3f})"
                  f"  val_loss {val_loss:.4f}  val_acc {val_acc:.3f}")
            recent = []
out.close()
