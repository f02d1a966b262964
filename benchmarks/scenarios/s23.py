"""Multi-label attribute tagging: 6 binary attributes per 12x12 image."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(23)
N_ATTR = 6


class AttributeImages(Dataset):
    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        self.targets = (rng.random((n, N_ATTR)) < 0.4).astype(np.float32)
        self.images = rng.normal(0, 0.5, (n, 1, 12, 12)).astype(np.float32)
        for i in range(n):
            for a in np.flatnonzero(self.targets[i]):
                r, c = divmod(a, 3)
                self.images[i, 0, r * 6:r * 6 + 4, c * 4:c * 4 + 3] += 1.2

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, i):
        return self.images[i], self.targets[i]


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(32 * 3 * 3, 64), nn.ReLU(),
        )
        self.out = nn.Linear(64, N_ATTR)

    def forward(self, x):
        return torch.sigmoid(self.out(self.body(x)))


def f1_score(pred, target):
    tp = (pred * target).sum()
    return (2 * tp / (pred.sum() + target.sum() + 1e-8)).item()


train_dl = DataLoader(AttributeImages(1500, 0), batch_size=32, shuffle=True)
val_dl = DataLoader(AttributeImages(300, 1), batch_size=300)
model = Tagger()
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

rows = []
step = 0
for epoch in range(6):
    model.train()
    for xb, yb in train_dl:
        probs = model(xb)
        loss = criterion(probs, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        if step % 10 == 0:
            rows.append({"step": step, "epoch": epoch, "loss": round(loss.item(), 5)})
    model.eval()
    with torch.no_grad():
        xv, yv = next(iter(val_dl))
        pv = model(xv)
        vloss = criterion(pv, yv).item()
        vacc = ((pv > 0.5).float() == yv).float().mean().item()
    rows[-1].update(val_loss=round(vloss, 5), val_accuracy=round(vacc, 4))
    print(f"epoch {epoch}: loss {loss.item():.4f}  val_loss {vloss:.4f}  val_acc {vacc:.3f}  val_f1 {f1_score((pv > 0.5).float(), yv):.3f}")

with open("metrics.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["step", "epoch", "loss", "val_loss", "val_accuracy"])
    w.writeheader()
    w.writerows(rows)
