"""Fine-tune a spectrum encoder, pre-trained on peak identification, for a 3-way material grade task."""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(61)
rng = np.random.default_rng(61)

N_BINS = 64
PEAKS = np.array([6, 15, 24, 34, 44, 55])     # bin of each reference line
GRID = np.arange(N_BINS)


def spectra(n):
    amp = rng.uniform(0.2, 1.0, size=(n, len(PEAKS)))
    shift = rng.normal(0, 0.8, size=(n, 1))
    lines = np.exp(-0.5 * ((GRID[None, None, :] - PEAKS[None, :, None] - shift[:, :, None]) / 1.6) ** 2)
    x = (amp[:, :, None] * lines).sum(1) + rng.normal(0, 0.05, size=(n, N_BINS)) + 0.1 * rng.normal(size=(n, 1))
    return torch.tensor(x[:, None, :], dtype=torch.float32), amp


class SpectrumNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv1d(1, 16, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(8),
            nn.Flatten(), nn.Linear(32 * 8, 64), nn.ReLU(),
        )
        self.head = nn.Linear(64, n_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


def pretrain():
    """Source task: which reference line is strongest (6 classes)."""
    x, amp = spectra(3000)
    y = torch.tensor(amp.argmax(1))
    net = SpectrumNet(n_classes=len(PEAKS))
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    for _ in range(3):
        for xb, yb in DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True):
            opt.zero_grad()
            F.cross_entropy(net(xb), yb).backward()
            opt.step()
    with torch.no_grad():
        print(f"pre-training accuracy {(net(x).argmax(1) == y).float().mean():.3f}")
    return net


def grade(amp):
    """Target task: which pair of lines dominates the sample."""
    return torch.tensor(np.stack([amp[:, 0] + amp[:, 1], amp[:, 2] + amp[:, 3], amp[:, 4] + amp[:, 5]], 1).argmax(1))


class Trainer:
    def __init__(self, model, lr=0.05, momentum=0.9, freeze_backbone=True):
        self.model = model
        if freeze_backbone:
            model.backbone.requires_grad_(False)
        params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.SGD(params, lr=lr, momentum=momentum)

    def evaluate(self, x, y):
        self.model.eval()
        with torch.no_grad():
            out = self.model(x)
        self.model.train()
        return F.cross_entropy(out, y).item(), (out.argmax(1) == y).float().mean().item()

    def fit(self, loader, val, epochs, log_path="metrics.csv"):
        with open(log_path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy"])
            step = 0
            for epoch in range(epochs):
                self.model.train()
                for xb, yb in loader:
                    self.optimizer.zero_grad()
                    loss = F.cross_entropy(self.model(xb), yb)
                    loss.backward()
                    self.optimizer.step()
                    if step % 10 == 0:
                        vl, va = self.evaluate(*val)
                        w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}"])
                    step += 1
                print(f"epoch {epoch}  loss {loss.item():.4f}  val loss {vl:.4f}  val acc {va:.3f}")


model = pretrain()
trainer = Trainer(model, lr=0.01)
model.head = nn.Linear(64, 3)          # new label set: 3 grades

x_tr, amp_tr = spectra(1200)
x_va, amp_va = spectra(400)
loader = DataLoader(TensorDataset(x_tr, grade(amp_tr)), batch_size=32, shuffle=True)
trainer.fit(loader, (x_va, grade(amp_va)), epochs=8)
print(f"chance-level loss: {math.log(3):.4f}")
