"""Small CNN on synthetic 16x16 texture images (4 texture classes)."""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def make_images(n, rng, size=16):
    yy, xx = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    labels = rng.integers(0, 4, size=n)
    imgs = np.empty((n, 1, size, size), dtype=np.float32)
    for i, lab in enumerate(labels):
        phase = rng.uniform(0, 2 * np.pi)
        freq = rng.uniform(0.5, 1.0)
        if lab == 0:
            base = np.sin(freq * yy + phase)
        elif lab == 1:
            base = np.sin(freq * xx + phase)
        elif lab == 2:
            base = np.sin(freq * (xx + yy) / 1.4 + phase)
        else:
            cy, cx = rng.uniform(4, 12, size=2)
            base = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 8.0) * 2 - 0.5
        imgs[i, 0] = base + rng.normal(0, 0.6, size=(size, size))
    return torch.from_numpy(imgs), torch.from_numpy(labels).long()


class SmallCNN(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


def train_one_epoch(model, loader, opt, loss_fn):
    model.train()
    total, correct, n = 0.0, 0, 0
    for xb, yb in loader:
        opt.zero_grad()
        out = model(xb)
        loss = loss_fn(out, yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(yb)
        correct += (out.argmax(1) == yb).sum().item()
        n += len(yb)
    return total / n, correct / n


@torch.no_grad()
def evaluate(model, loader, loss_fn):
    model.eval()
    total, correct, n = 0.0, 0, 0
    for xb, yb in loader:
        out = model(xb)
        total += loss_fn(out, yb).item() * len(yb)
        correct += (out.argmax(1) == yb).sum().item()
        n += len(yb)
    return total / n, correct / n


def main():
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    x_tr, y_tr = make_images(1200, rng)
    x_va, y_va = make_images(300, rng)
    train_loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=32, shuffle=True)
    val_loader = DataLoader(TensorDataset(x_va, y_va), batch_size=128)

    model = SmallCNN()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    with open("metrics.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy"])
        w.writeheader()
        for epoch in range(1, 7):
            tl, ta = train_one_epoch(model, train_loader, opt, loss_fn)
            vl, va = evaluate(model, val_loader, loss_fn)
            w.writerow({"epoch": epoch, "train_loss": round(tl, 5), "val_loss": round(vl, 5),
                        "accuracy": round(ta, 4), "val_accuracy": round(va, 4)})
            print(f"[{epoch}] train {tl:.4f}/{ta:.3f}  val {vl:.4f}/{va:.3f}")


if __name__ == "__main__":
    main()
