"""Grade olive-oil samples into 3 quality classes from 12 lab measurements (online-learning style loop)."""
import csv
import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class Config:
    batch_size: int = 1
    lr: float = 0.015
    momentum: float = 0.9
    epochs: int = 2
    hidden: int = 64
    log_every: int = 20
    seed: int = 72


def make_data(n, rng, centers):
    y = rng.integers(0, len(centers), n)
    x = centers[y] + rng.normal(0, 1.0, size=(n, centers.shape[1]))
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


def main(cfg):
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    centers = rng.normal(0, 0.9, size=(3, 12))
    x_tr, y_tr = make_data(1500, rng, centers)
    x_va, y_va = make_data(500, rng, centers)
    loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=cfg.batch_size, shuffle=True)

    model = nn.Sequential(nn.Linear(12, cfg.hidden), nn.ReLU(), nn.Linear(cfg.hidden, cfg.hidden), nn.ReLU(),
                          nn.Linear(cfg.hidden, 3))
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=cfg.momentum)
    loss_fn = nn.CrossEntropyLoss()

    with open("metrics.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy"])
        step = 0
        for epoch in range(cfg.epochs):
            for xb, yb in loader:
                loss = loss_fn(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                if step % cfg.log_every == 0:
                    with torch.no_grad():
                        out = model(x_va)
                        vl = loss_fn(out, y_va).item()
                        va = (out.argmax(1) == y_va).float().mean().item()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}"])
                step += 1
            print(f"epoch {epoch}  val loss {vl:.4f}  val acc {va:.3f}")
    print(f"chance-level loss: {math.log(3):.4f}")


if __name__ == "__main__":
    main(Config())
