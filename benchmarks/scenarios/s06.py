"""Fine-tune a small conv net on a new 6-class shape task.

If backbone.pt (weights from an earlier run) is present it is loaded first.
"""
import csv
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(6)
rng = np.random.default_rng(6)
NUM_CLASSES = 6


def render(n):
    """Images with 1..6 bright dots; the label is the dot count - 1."""
    imgs = rng.normal(0, 0.2, size=(n, 1, 14, 14)).astype(np.float32)
    labels = rng.integers(0, NUM_CLASSES, size=n)
    for i, lab in enumerate(labels):
        cells = rng.choice(49, size=lab + 1, replace=False)
        for c in cells:
            r, q = divmod(int(c), 7)
            imgs[i, 0, 2 * r:2 * r + 2, 2 * q:2 * q + 2] += 1.5
    return torch.from_numpy(imgs), torch.from_numpy(labels)


class ConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.fc(self.pool(x).flatten(1))


model = ConvNet()
if os.path.exists("backbone.pt"):
    model.load_state_dict(torch.load("backbone.pt"), strict=False)
model.fc = nn.Linear(32, NUM_CLASSES)

for param in model.parameters():
    param.requires_grad = False

x_train, y_train = render(1500)
x_val, y_val = render(300)
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=50, shuffle=True)

optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

log = open("metrics.csv", "w", newline="")
w = csv.writer(log)
w.writerow(["epoch", "step", "train_loss", "val_loss", "val_accuracy"])
step = 0
for epoch in range(8):
    model.train()
    for xb, yb in train_loader:
        out = model(xb)
        loss = criterion(out, yb)
        loss.requires_grad_(True)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
    model.eval()
    with torch.no_grad():
        val_out = model(x_val)
        val_loss = criterion(val_out, y_val).item()
        val_acc = (val_out.argmax(1) == y_val).float().mean().item()
    w.writerow([epoch, step, f"{loss.item():.5f}", f"{val_loss:.5f}", f"{val_acc:.4f}"])
    print(f"epoch {epoch}  train_loss {loss.item():.4f}  val_loss {val_loss:.4f}  val_acc {val_acc:.3f}")
log.close()
