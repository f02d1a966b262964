"""Pump vibration classifier: a small patch transformer over 1-D accelerometer traces.

Four machine conditions: normal, imbalance, bearing wear, cavitation.
"""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 109
torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)

CONDITIONS = ["normal", "imbalance", "bearing", "cavitation"]
SIG_LEN, PATCH = 96, 8
N_PATCH = SIG_LEN // PATCH
D_MODEL = 32
EPOCHS = 6
BATCH = 32
WARMUP_STEPS = 60
PEAK_LR = 2e-3


def synth_trace(cond):
    t = np.arange(SIG_LEN) / SIG_LEN
    f_run = rng.uniform(2.5, 3.5)                   # shaft rotation cycles per window
    phase = rng.uniform(0, 2 * np.pi)
    x = 0.6 * np.sin(2 * np.pi * f_run * t + phase)
    if cond == 1:                                   # imbalance: strong 1x component
        x *= rng.uniform(1.8, 2.4)
    elif cond == 2:                                 # bearing: periodic impacts
        period = int(rng.integers(10, 15))
        start = int(rng.integers(0, period))
        x[start::period] += rng.uniform(1.5, 2.5)
    elif cond == 3:                                 # cavitation: broadband bursts
        centre = int(rng.integers(20, 76))
        x[centre - 10:centre + 10] += rng.normal(0, 0.9, 20)
    return x + rng.normal(0, 0.35, SIG_LEN)


def build_split(n):
    y = rng.integers(0, len(CONDITIONS), n)
    x = np.stack([synth_trace(c) for c in y]).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y)


class PatchTransformer(nn.Module):
    def __init__(self, n_classes, d_model=D_MODEL, nhead=4, layers=2):
        super().__init__()
        self.patch_embed = nn.Linear(PATCH, d_model)
        self.pos = nn.Parameter(torch.randn(1, N_PATCH, d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=64,
                                           dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=layers)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, x):
        tokens = self.patch_embed(x.view(x.size(0), N_PATCH, PATCH)) + self.pos
        h = self.encoder(tokens)
        return self.head(self.norm(h.mean(dim=1)))


def evaluate(model, x, y, criterion):
    model.eval()
    with torch.no_grad():
        logits = model(x)
        loss = criterion(logits, y).item()
        acc = (logits.argmax(1) == y).float().mean().item()
    return loss, acc


def main():
    x_train, y_train = build_split(2000)
    x_val, y_val = build_split(500)
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=BATCH, shuffle=True)

    model = PatchTransformer(len(CONDITIONS))
    optimizer = torch.optim.AdamW(model.parameters(), lr=PEAK_LR, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / WARMUP_STEPS))
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["epoch", "step", "lr", "train_loss", "train_acc", "val_loss", "val_acc"])
        for epoch in range(EPOCHS):
            model.train()
            total, correct, seen = 0.0, 0, 0
            for xb, yb in loader:
                logits = model(xb)
                loss = criterion(logits, yb)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                scheduler.step()
                step += 1
                total += loss.item() * len(yb)
                correct += (logits.argmax(1) == yb).sum().item()
                seen += len(yb)
            tr_loss, tr_acc = total / seen, correct / seen
            va_loss, va_acc = evaluate(model, x_val, y_val, criterion)
            lr = optimizer.param_groups[0]["lr"]
            writer.writerow([epoch, step, f"{lr:.2e}", f"{tr_loss:.4f}", f"{tr_acc:.4f}",
                             f"{va_loss:.4f}", f"{va_acc:.4f}"])
            print(f"epoch {epoch} step {step:4d} lr {lr:.1e} | train {tr_loss:.4f} acc {tr_acc:.3f}"
                  f" | val {va_loss:.4f} acc {va_acc:.3f}")


if __name__ == "__main__":
    main()
