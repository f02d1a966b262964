"""Concrete compressive-strength regression (28-day strength from mix proportions).

Eight mix components + curing age -> strength (MPa, standardised). MLP trained with SGD +
momentum; the schedule is configurable, the production config uses the constant default.
"""
import argparse
import csv
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(129)
torch.set_num_threads(1)


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=14)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--schedule", choices=["constant", "cosine"], default="constant")
    return p.parse_args()


def synth(n, rng):
    cement, slag, ash, water, sp, coarse, fine = (rng.uniform(100, 540, n), rng.uniform(0, 360, n),
                                                  rng.uniform(0, 200, n), rng.uniform(120, 250, n),
                                                  rng.uniform(0, 30, n), rng.uniform(800, 1150, n),
                                                  rng.uniform(590, 990, n))
    age = rng.choice([3, 7, 14, 28, 56, 90], n).astype(float)
    binder = cement + 0.6 * slag + 0.4 * ash
    wb = water / binder
    strength = 90 * np.exp(-1.6 * wb) * (np.log(age) / np.log(28)) ** 0.5 + 0.3 * sp + rng.normal(0, 1.0, n)
    x = np.stack([cement, slag, ash, water, sp, coarse, fine, age, wb], 1)
    return x.astype(np.float32), strength.astype(np.float32)


def main():
    args = get_args()
    rng = np.random.default_rng(129)
    x_tr, y_tr = synth(2000, rng)
    x_va, y_va = synth(500, rng)
    mu, sd, ym, ys = x_tr.mean(0), x_tr.std(0), y_tr.mean(), y_tr.std()
    print(f"target sd {ys:.2f} MPa, noise sd 1.0 MPa -> irreducible val MSE ~{(1 / ys) ** 2:.4f}")
    tx = lambda x: torch.from_numpy((x - mu) / sd)
    ty = lambda y: torch.from_numpy((y - ym) / ys)
    loader = DataLoader(TensorDataset(tx(x_tr), ty(y_tr)), batch_size=args.batch_size, shuffle=True)
    xv, yv = tx(x_va), ty(y_va)

    model = nn.Sequential(nn.Linear(9, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    total = args.epochs * len(loader)
    sched = None
    if args.schedule == "cosine":
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / total)))
    crit = nn.MSELoss()
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "lr"])
        for epoch in range(args.epochs):
            model.train()
            for xb, yb in loader:
                loss = crit(model(xb).squeeze(1), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                if sched:
                    sched.step()
                step += 1
                if step % 25 == 0:
                    model.eval()
                    with torch.no_grad():
                        vl = crit(model(xv).squeeze(1), yv).item()
                    model.train()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{opt.param_groups[0]['lr']:.5f}"])
            print(f"epoch {epoch:2d} step {step}  train {loss.item():.4f}  val mse {vl:.4f}")


if __name__ == "__main__":
    main()
