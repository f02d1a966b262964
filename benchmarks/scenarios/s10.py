# GRU classifier for 1-D signals: three signal families (sine, square, sawtooth).
import csv

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(10)
np.random.seed(10)


class SignalDataset(Dataset):
    def __init__(self, n, length=30):
        self.x = np.zeros((n, length, 1), dtype=np.float32)
        self.y = np.random.randint(0, 3, size=n)
        t = np.arange(length)
        for i, c in enumerate(self.y):
            f = np.random.uniform(0.15, 0.35)
            ph = np.random.uniform(0, 2 * np.pi)
            s = np.sin(2 * np.pi * f * t + ph)
            if c == 1:
                s = np.sign(s)
            elif c == 2:
                s = 2 * ((f * t + ph / (2 * np.pi)) % 1.0) - 1
            self.x[i, :, 0] = s + np.random.normal(0, 0.3, length)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), torch.tensor(self.y[i])


class GRUClassifier(nn.Module):
    def __init__(self, hidden=32, n_classes=3):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        _, h = self.gru(x)
        return self.head(h[-1])


train_loader = DataLoader(SignalDataset(1500), batch_size=32, shuffle=True)
val_loader = DataLoader(SignalDataset(300), batch_size=100)

model = GRUClassifier()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
criterion = nn.CrossEntropyLoss()

history = []
for epoch in range(6):
    model.train()
    tl, tc, tn = 0.0, 0, 0
    for x, y in train_loader:
        optimizer.zero_grad()
        logits = model(x)
        loss = criterion(logits, y)
        loss.backward()
        optimizer.step()
        tl += loss.item() * len(y)
        tc += (logits.argmax(-1) == y).sum().item()
        tn += len(y)
    model.eval()
    vl, vc, vn = 0.0, 0, 0
    with torch.no_grad():
        for x, y in val_loader:
            logits = model(x)
            vl += criterion(logits, y).item() * len(y)
            vc += (logits.argmax(-1) == y).sum().item()
            vn += len(y)
    history.append((epoch, tl / tn, vl / vn, tc / tn, vc / vn))
    print("epoch %d: train loss %.4f acc %.3f | val loss %.4f acc %.3f" % (epoch, tl / tn, tc / tn, vl / vn, vc / vn))

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy"])
    for row in history:
        w.writerow([row[0]] + [f"{v:.5f}" for v in row[1:]])
