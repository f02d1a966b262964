#!/usr/bin/env python
"""Regress a noisy physical quantity (damped oscillator energy) from 8 parameters."""
import argparse
import csv
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def parse():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=6000)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--bs", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--out", default="metrics.csv")
    return ap.parse_args()


def simulate(n, rng):
    p = rng.uniform(0.5, 2.0, size=(n, 8))
    mass, k, damping, amp, t = p[:, 0], p[:, 1], p[:, 2] * 0.2, p[:, 3], p[:, 4]
    omega = np.sqrt(k / mass)
    energy = 0.5 * k * (amp * np.exp(-damping * t) * np.cos(omega * t)) ** 2 + 0.1 * p[:, 5] * p[:, 6]
    energy += rng.normal(0, 0.02, n)
    x = (p - p.mean(0)) / p.std(0)
    y = (energy - energy.mean()) / energy.std()
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)


def main():
    args = parse()
    torch.manual_seed(28)
    rng = np.random.default_rng(28)
    x, y = simulate(args.n, rng)
    n_tr = int(0.8 * args.n)
    train_dl = DataLoader(TensorDataset(x[:n_tr], y[:n_tr]), batch_size=args.bs, shuffle=True)
    xv, yv = x[n_tr:], y[n_tr:]

    net = nn.Sequential(nn.Linear(8, 128), nn.SiLU(), nn.Linear(128, 128), nn.SiLU(), nn.Linear(128, 1))
    opt = torch.optim.RMSprop(net.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2)
    mse = nn.MSELoss()

    with open(args.out, "w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["epoch", "train_loss", "val_loss", "lr", "step_time"])
        for epoch in range(args.epochs):
            net.train()
            t0, total = time.perf_counter(), 0.0
            for xb, yb in train_dl:
                opt.zero_grad()
                loss = mse(net(xb).squeeze(-1), yb)
                loss.backward()
                opt.step()
                total += loss.item() * len(xb)
            step_time = (time.perf_counter() - t0) / len(train_dl)
            net.eval()
            with torch.no_grad():
                val = mse(net(xv).squeeze(-1), yv).item()
            sched.step(val)
            lr = opt.param_groups[0]["lr"]
            wr.writerow([epoch, f"{total / n_tr:.5f}", f"{val:.5f}", f"{lr:.2e}", f"{step_time:.5f}"])
            print(f"epoch {epoch:2d}  train_mse {total / n_tr:.4f}  val_mse {val:.4f}  lr {lr:.1e}")


if __name__ == "__main__":
    main()
