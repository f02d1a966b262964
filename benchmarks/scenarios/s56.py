"""10-class recognition of noisy 8x8 glyphs (think a tiny digits set) with a 3-layer MLP."""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(56)
rng = np.random.default_rng(56)

N_CLASSES = 10
PROTOTYPES = (rng.random((N_CLASSES, 8, 8)) < 0.35).astype(np.float32)


def make_glyphs(n):
    y = rng.integers(0, N_CLASSES, n)
    x = PROTOTYPES[y].copy()
    flip = rng.random(x.shape) < 0.12            # salt-and-pepper noise
    x[flip] = 1.0 - x[flip]
    shift = rng.integers(-1, 2, size=n)
    for i in range(n):                            # small horizontal jitter
        x[i] = np.roll(x[i], shift[i], axis=1)
    x = x + rng.normal(0, 0.2, size=x.shape)
    return torch.tensor(x.reshape(n, 64), dtype=torch.float32), torch.tensor(y)


x_train, y_train = make_glyphs(3000)
x_val, y_val = make_glyphs(600)
loader = DataLoader(TensorDataset(x_train, y_train), batch_size=100, shuffle=True)


class GlyphNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 256)
        self.fc2 = nn.Linear(256, 128)
        self.out = nn.Linear(128, N_CLASSES)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return F.softmax(self.out(x), dim=-1)


model = GlyphNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    log = csv.writer(fh)
    log.writerow(["epoch", "train_loss", "val_loss", "train_acc", "val_acc"])
    for epoch in range(25):
        model.train()
        losses, correct = [], 0
        for xb, yb in loader:
            optimizer.zero_grad()
            probs = model(xb)
            loss = criterion(probs, yb)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            correct += (probs.argmax(1) == yb).sum().item()
        model.eval()
        with torch.no_grad():
            vp = model(x_val)
            val_loss = criterion(vp, y_val).item()
            val_acc = (vp.argmax(1) == y_val).float().mean().item()
        train_loss, train_acc = float(np.mean(losses)), correct / len(x_train)
        log.writerow([epoch, f"{train_loss:.5f}", f"{val_loss:.5f}", f"{train_acc:.4f}", f"{val_acc:.4f}"])
        print(f"epoch {epoch:2d}  loss {train_loss:.4f}  acc {train_acc:.3f}  val loss {val_loss:.4f}  val acc {val_acc:.3f}")
