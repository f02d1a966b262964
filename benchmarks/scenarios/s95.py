"""Micro-Doppler radar target classifier: small CNN on 1x24x24 Doppler-vs-time spectrograms (walk, run, bike, car, drone)."""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.parametrizations import weight_norm
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(95)
rng = np.random.default_rng(95)

H = W = 24                      # Doppler bins x time frames
TARGETS = ["walk", "run", "bike", "car", "drone"]
CFG = dict(epochs=7, batch_size=32, lr=2e-3, weight_decay=1e-4, weight_norm=True)

dop = np.arange(H)[:, None]
frames = np.arange(W)[None, :]


def blob(centre, width=0.9):
    return np.exp(-0.5 * ((dop - centre) / width) ** 2)


def signature(kind):
    v = rng.uniform(6, 18)                              # bulk velocity bin
    ph = rng.uniform(0, 2 * np.pi)
    img = blob(v + 0 * frames, 1.2)
    if kind == 0:                                        # walking: slow limb swing
        img = img + 0.6 * blob(v + rng.uniform(3, 5) * np.sin(2 * np.pi * frames / rng.uniform(10, 13) + ph))
    elif kind == 1:                                      # running: fast, wide swing
        img = img + 0.6 * blob(v + rng.uniform(5, 7) * np.sin(2 * np.pi * frames / rng.uniform(5, 7) + ph))
    elif kind == 2:                                      # cycling: small fast wiggle on both sides
        wig = rng.uniform(1.5, 2.5) * np.sin(2 * np.pi * frames / rng.uniform(4, 6) + ph)
        img = img + 0.4 * blob(v + wig) + 0.4 * blob(v - wig)
    elif kind == 3:                                      # car: body line plus a wheel line
        img = img + 0.5 * blob(v + rng.uniform(2, 4) + 0 * frames)
    else:                                                # drone: rotor flashes across many bins
        period = rng.integers(3, 6)
        flash = ((frames + rng.integers(0, period)) % period == 0).astype(float)
        img = img + 0.7 * flash * np.exp(-0.5 * ((dop - v) / 6.0) ** 2)
    img = img * rng.uniform(0.7, 1.3) + rng.normal(0, 0.15, (H, W))
    return img.astype(np.float32)


def dataset(n):
    y = rng.integers(0, len(TARGETS), n)
    x = np.stack([signature(k) for k in y])[:, None]
    return torch.from_numpy(x), torch.from_numpy(y)


def conv_block(c_in, c_out):
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.ReLU())


class DopplerCNN(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.features = nn.Sequential(
            conv_block(1, 16), nn.MaxPool2d(2),
            conv_block(16, 32), nn.MaxPool2d(2),
            conv_block(32, 48), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.classifier = nn.Linear(48, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x))


def build(cfg):
    model = DopplerCNN(len(TARGETS))
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    return model, optimizer


def use_weight_norm(model):
    """Weight-normalised convs/linears instead of BatchNorm (batch statistics are unreliable on radar bursts)."""
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            weight_norm(m)
    return model


def run_epoch(model, loader, optimizer=None):
    training = optimizer is not None
    model.train(training)
    total, correct, count = 0.0, 0, 0
    with torch.set_grad_enabled(training):
        for xb, yb in loader:
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            if training:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total += loss.item() * len(yb)
            correct += (logits.argmax(1) == yb).sum().item()
            count += len(yb)
    return total / count, correct / count


def main():
    x_tr, y_tr = dataset(1600)
    x_va, y_va = dataset(400)
    train_dl = DataLoader(TensorDataset(x_tr, y_tr), batch_size=CFG["batch_size"], shuffle=True)
    val_dl = DataLoader(TensorDataset(x_va, y_va), batch_size=200)

    model, optimizer = build(CFG)
    if CFG["weight_norm"]:
        model = use_weight_norm(model)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model parameters: {n_params}")

    with open("metrics.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            tl, ta = run_epoch(model, train_dl, optimizer)
            vl, va = run_epoch(model, val_dl)
            w.writerow([epoch, f"{tl:.5f}", f"{ta:.4f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"[{epoch + 1}/{CFG['epochs']}] loss {tl:.4f} acc {ta:.3f} | val loss {vl:.4f} acc {va:.3f}")


if __name__ == "__main__":
    main()
