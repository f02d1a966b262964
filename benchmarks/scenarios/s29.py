"""Small CNN on a small labelled set of 16x16 glyph images (10 classes, 30 images per class)."""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(29)
rng = np.random.default_rng(29)
N_CLASSES = 10
templates = (rng.random((N_CLASSES, 16, 16)) < 0.3).astype(np.float32)


def glyphs(per_class):
    xs, ys = [], []
    for c in range(N_CLASSES):
        for _ in range(per_class):
            dy, dx = rng.integers(-2, 3, 2)
            img = np.roll(np.roll(templates[c], dy, 0), dx, 1)
            img = img * rng.uniform(0.5, 1.2) + rng.normal(0, 0.7, img.shape)
            xs.append(img)
            ys.append(c)
    x = torch.tensor(np.array(xs), dtype=torch.float32).unsqueeze(1)
    return x, torch.tensor(ys)


class GlyphNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.f1 = nn.Linear(32 * 4 * 4, 128)
        self.f2 = nn.Linear(128, N_CLASSES)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.f2(F.relu(self.f1(x.flatten(1))))


x_tr, y_tr = glyphs(30)
x_va, y_va = glyphs(40)
train_loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=25, shuffle=True)
model = GlyphNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy"])
    for epoch in range(25):
        model.train()
        for xb, yb in train_loader:
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            out_tr, out_va = model(x_tr), model(x_va)
            tl, vl = F.cross_entropy(out_tr, y_tr).item(), F.cross_entropy(out_va, y_va).item()
            ta = (out_tr.argmax(1) == y_tr).float().mean().item()
            va = (out_va.argmax(1) == y_va).float().mean().item()
        w.writerow([epoch, f"{tl:.5f}", f"{vl:.5f}", f"{ta:.4f}", f"{va:.4f}"])
        if epoch % 3 == 0 or epoch == 24:
            print(f"epoch {epoch:2d}  train {tl:.3f}/{ta:.2f}  val {vl:.3f}/{va:.2f}")
