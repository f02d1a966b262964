import csv
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(16)


class Digits(Dataset):
    """28x28 synthetic 'digit' images: a stroke pattern per class plus noise."""

    def __init__(self, n, seed=0):
        rng = np.random.default_rng(seed)
        self.y = rng.integers(0, 10, n)
        self.x = rng.normal(0, 0.4, (n, 1, 28, 28)).astype(np.float32)
        for i, c in enumerate(self.y):
            row = 3 + 2 * c
            self.x[i, 0, row:row + 2, 4:24] += 1.0
            self.x[i, 0, 4:24, row:row + 2] += 0.5

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), int(self.y[i])


class LeNetish(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.fc = nn.Sequential(nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))

    def forward(self, x):
        x = self.conv(x)
        return self.fc(x.view(x.size(0), -1))


loader = DataLoader(Digits(2000), batch_size=64, shuffle=True)
model = LeNetish()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["step", "epoch", "loss", "step_time"])
    step = 0
    for epoch in range(5):
        for images, targets in loader:
            t0 = time.time()
            optimizer.zero_grad()
            loss = criterion(model(images), targets)
            loss.backward()
            optimizer.step()
            writer.writerow([step, epoch, loss.item(), time.time() - t0])
            step += 1
        print(f"epoch {epoch} loss {loss.item():.4f}")
