"""Grain-moisture class prediction from NIR reflectance bands.

A tanh MLP maps 24 reflectance bands to 5 moisture grades. Weights are initialised by a
project-wide `init_weights` helper (shared with the older Lua/Torch7 port).
"""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(119)
torch.set_num_threads(1)

CFG = dict(bands=24, grades=5, hidden=256, epochs=10, batch_size=64, lr=1e-3, init_std=1.0)


def synth(n, rng):
    grade = rng.integers(0, CFG["grades"], n)
    wl = np.linspace(0, 1, CFG["bands"])
    water = np.exp(-((wl - 0.62) ** 2) / 0.004) + 0.6 * np.exp(-((wl - 0.85) ** 2) / 0.003)
    base = 0.5 + 0.2 * wl
    x = base[None] - (0.04 + 0.05 * grade[:, None]) * water[None]
    x = x * rng.uniform(0.9, 1.1, (n, 1)) + rng.normal(0, 0.01, (n, CFG["bands"]))
    return x.astype(np.float32), grade


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, 0.0, CFG["init_std"])
        nn.init.zeros_(m.bias)


def build_model():
    h = CFG["hidden"]
    model = nn.Sequential(
        nn.Linear(CFG["bands"], h), nn.Tanh(),
        nn.Linear(h, h), nn.Tanh(),
        nn.Linear(h, h), nn.Tanh(),
        nn.Linear(h, CFG["grades"]),
    )
    model.apply(init_weights)
    return model


def run_epoch(model, loader, crit, opt=None):
    train = opt is not None
    model.train(train)
    tot, correct, n = 0.0, 0, 0
    with torch.set_grad_enabled(train):
        for xb, yb in loader:
            out = model(xb)
            loss = crit(out, yb)
            if train:
                opt.zero_grad()
                loss.backward()
                opt.step()
            tot += loss.item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    return tot / n, correct / n


def main():
    rng = np.random.default_rng(119)
    x_tr, y_tr = synth(3000, rng)
    x_va, y_va = synth(800, rng)
    mu, sd = x_tr.mean(0), x_tr.std(0)
    x_tr, x_va = (x_tr - mu) / sd, (x_va - mu) / sd
    tr = DataLoader(TensorDataset(torch.from_numpy(x_tr), torch.from_numpy(y_tr)),
                    batch_size=CFG["batch_size"], shuffle=True)
    va = DataLoader(TensorDataset(torch.from_numpy(x_va), torch.from_numpy(y_va)), batch_size=400)
    model = build_model()
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    crit = nn.CrossEntropyLoss()
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            tl, ta = run_epoch(model, tr, crit, opt)
            vl, vacc = run_epoch(model, va, crit)
            w.writerow([epoch, f"{tl:.5f}", f"{ta:.4f}", f"{vl:.5f}", f"{vacc:.4f}"])
            print(f"epoch {epoch}  train {tl:.4f}/{ta:.3f}  val {vl:.4f}/{vacc:.3f}")


if __name__ == "__main__":
    main()
