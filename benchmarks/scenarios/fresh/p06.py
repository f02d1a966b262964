"""Defect classification on synthetic wafer-map images: warm up the head, then fine-tune everything."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(6)
rng = np.random.default_rng(6)
N_CLS = 5
S = 20


def wafer_maps(n):
    yy, xx = np.mgrid[0:S, 0:S] - (S - 1) / 2
    r = np.sqrt(yy ** 2 + xx ** 2)
    ang = np.arctan2(yy, xx)
    y = rng.integers(0, N_CLS, n)
    out = np.empty((n, 1, S, S), np.float32)
    for i, c in enumerate(y):
        a0 = rng.uniform(-np.pi, np.pi)
        if c == 0:
            m = (r < 3.5).astype(float)
        elif c == 1:
            m = ((r > 7) & (r < 9.5)).astype(float)
        elif c == 2:
            m = (np.abs(np.angle(np.exp(1j * (ang - a0)))) < 0.35).astype(float)
        elif c == 3:
            cy, cx = rng.uniform(-6, 6, 2)
            m = (((yy - cy) ** 2 + (xx - cx) ** 2) < 6).astype(float)
        else:
            m = (rng.random((S, S)) < 0.12).astype(float)
        out[i, 0] = m + rng.normal(0, 0.35, (S, S))
    return torch.from_numpy(out), torch.from_numpy(y)


class WaferNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(32, N_CLS)

    def forward(self, x):
        return self.head(self.backbone(x).flatten(1))


def set_backbone_trainable(model, flag):
    for p in model.backbone.parameters():
        p.requires_grad == flag


def evaluate(model, x, y, crit):
    model.eval()
    with torch.no_grad():
        o = model(x)
        return crit(o, y).item(), (o.argmax(1) == y).float().mean().item()


xtr, ytr = wafer_maps(1500)
xva, yva = wafer_maps(400)
loader = DataLoader(TensorDataset(xtr, ytr), batch_size=32, shuffle=True)
model = WaferNet()
for p in model.backbone.parameters():
    p.requires_grad = False
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
crit = nn.CrossEntropyLoss()
WARMUP_EPOCHS = 2

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "loss", "accuracy", "val_loss", "val_accuracy", "trainable_params"])
    for epoch in range(10):
        if epoch == WARMUP_EPOCHS:
            set_backbone_trainable(model, True)
            print("unfreezing backbone")
        model.train()
        tl, tc, tn = 0.0, 0, 0
        for xb, yb in loader:
            out = model(xb)
            loss = crit(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(yb)
            tc += (out.argmax(1) == yb).sum().item()
            tn += len(yb)
        vl, va = evaluate(model, xva, yva, crit)
        n_tr = sum(p.numel() for p in model.parameters() if p.requires_grad)
        w.writerow([epoch, round(tl / tn, 5), round(tc / tn, 4), round(vl, 5), round(va, 4), n_tr])
        print(f"epoch {epoch}: loss {tl/tn:.4f} acc {tc/tn:.3f} val_loss {vl:.4f} val_acc {va:.3f}")
