"""Small CNN on 4 synthetic texture classes."""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(39)
rng = np.random.default_rng(39)


def textures(n):
    yy, xx = np.mgrid[0:12, 0:12]
    y = rng.integers(0, 4, n)
    x = np.empty((n, 1, 12, 12), np.float32)
    for i, c in enumerate(y):
        ph = rng.uniform(0, 2 * np.pi)
        pattern = [np.sin(xx + ph), np.sin(yy + ph), np.sin((xx + yy) * 0.7 + ph), np.sin((xx - yy) * 0.7 + ph)][c]
        x[i, 0] = pattern + rng.normal(0, 1.2, (12, 12))
    return torch.from_numpy(x), torch.from_numpy(y)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 3 * 3, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


x_tr, y_tr = textures(600)
x_va, y_va = textures(200)
loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=2, shuffle=True)
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(2):
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            if step % 10 == 0:
                with torch.no_grad():
                    vo = model(x_va)
                    vl = F.cross_entropy(vo, y_va).item()
                    va = (vo.argmax(1) == y_va).float().mean().item()
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}"])
            step += 1
        print(f"epoch {epoch}: val_loss {vl:.4f} val_acc {va:.3f}")
