"""Hand-drawn schematic symbol classifier (resistor / capacitor / diode / ground / node).

Small CNN on 16x16 binarised crops; label smoothing is used because the downstream
netlist extractor consumes calibrated probabilities.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(132)
torch.set_num_threads(1)

SYMBOLS = ["resistor", "capacitor", "diode", "ground", "node"]
CFG = {"epochs": 8, "batch_size": 64, "lr": 0.05, "momentum": 0.9, "label_smoothing": 0.2}


def draw(sym, rng):
    img = np.zeros((16, 16), np.float32)
    r, c = 8 + rng.integers(-1, 2), 8 + rng.integers(-1, 2)
    if sym == 0:
        for k in range(-5, 6):
            img[r + (1 if k % 2 else -1), c + k] = 1
    elif sym == 1:
        img[r - 4:r + 4, c - 1] = 1
        img[r - 4:r + 4, c + 1] = 1
    elif sym == 2:
        for k in range(5):
            img[r - k:r + k + 1, c - 2 + k] = 1
        img[r - 4:r + 5, c + 3] = 1
    elif sym == 3:
        for k, half in enumerate([5, 3, 1]):
            img[r + 2 * k, c - half:c + half + 1] = 1
    else:
        img[r - 2:r + 2, c - 2:c + 2] = 1
    noise = rng.random((16, 16)) < 0.06
    return np.abs(img - noise)


def make(n, rng):
    y = rng.integers(0, len(SYMBOLS), n)
    return torch.from_numpy(np.stack([draw(s, rng) for s in y])[:, None]), torch.from_numpy(y)


def main():
    rng = np.random.default_rng(132)
    x_tr, y_tr = make(2000, rng)
    x_va, y_va = make(500, rng)
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(32 * 16, 64), nn.ReLU(), nn.Linear(64, len(SYMBOLS)))
    opt = torch.optim.SGD(model.parameters(), lr=CFG["lr"], momentum=CFG["momentum"])
    crit = nn.CrossEntropyLoss(label_smoothing=CFG["label_smoothing"])
    loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=CFG["batch_size"], shuffle=True)
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            model.train()
            tl, tc, n = 0.0, 0, 0
            for xb, yb in loader:
                out = model(xb)
                loss = crit(out, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                tl += loss.item() * len(yb)
                tc += (out.argmax(1) == yb).sum().item()
                n += len(yb)
            model.eval()
            with torch.no_grad():
                out = model(x_va)
                vl, va = crit(out, y_va).item(), (out.argmax(1) == y_va).float().mean().item()
            w.writerow([epoch, f"{tl / n:.5f}", f"{tc / n:.4f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"epoch {epoch}  train {tl / n:.4f}/{tc / n:.3f}  val {vl:.4f}/{va:.3f}")


if __name__ == "__main__":
    main()
