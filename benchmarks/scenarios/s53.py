"""Activity recognition from 3-axis accelerometer windows (four walking paces) with a small 1-D conv net."""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 53
torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)

WINDOW, CHANNELS, N_CLASSES = 64, 3, 4
FREQS = [1.0, 1.25, 1.5, 1.75]      # dominant step frequency per activity


def make_windows(n):
    t = np.linspace(0, 8, WINDOW)
    labels = rng.integers(0, N_CLASSES, n)
    x = np.empty((n, CHANNELS, WINDOW), dtype=np.float32)
    for i, c in enumerate(labels):
        phase = rng.uniform(0, 2 * np.pi, CHANNELS)
        for ch in range(CHANNELS):
            x[i, ch] = rng.uniform(0.4, 1.2) * np.sin(2 * np.pi * FREQS[c] * t / 2 + phase[ch]) * (1.0 + 0.3 * ch)
        x[i] += rng.normal(0, 1.0, size=(CHANNELS, WINDOW))
    return torch.from_numpy(x), torch.from_numpy(labels).long()


x_train, y_train = make_windows(1200)
x_val, y_val = make_windows(400)
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=32, shuffle=True)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(CHANNELS, 32, kernel_size=7, padding=3)
        self.conv2 = nn.Conv1d(32, 64, kernel_size=5, padding=2)
        self.conv3 = nn.Conv1d(64, 64, kernel_size=5, padding=2)
        self.fc = nn.Linear(64, N_CLASSES)

    def forward(self, x):
        x = F.max_pool1d(F.leaky_relu(self.conv1(x)), 2)
        x = F.max_pool1d(F.leaky_relu(self.conv2(x)), 2)
        x = F.leaky_relu(self.conv3(x))
        return self.fc(x.mean(dim=2))


model = ConvNet()
LR = 0.1
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
criterion = nn.CrossEntropyLoss()


def evaluate():
    model.eval()
    with torch.no_grad():
        out = model(x_val)
        loss = criterion(out, y_val).item()
        acc = (out.argmax(1) == y_val).float().mean().item()
    model.train()
    return loss, acc


with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy", "lr"])
    step = 0
    for epoch in range(8):
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            if step % 5 == 0:
                vl, va = evaluate()
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}", LR])
            step += 1
        vl, va = evaluate()
        print(f"epoch {epoch}  last batch loss {loss.item():.4f}  val loss {vl:.4f}  val acc {va:.3f}")
print(f"chance-level loss: {math.log(N_CLASSES):.4f}")
