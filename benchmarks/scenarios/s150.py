"""Compression autoencoder for 32-channel strain-gauge snapshots from a bridge deck.

Snapshots are driven by 4 load modes plus sensor noise (sigma 0.3 on standardised channels);
an 8-dimensional bottleneck is used for transmission from the remote logger.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(150)
torch.set_num_threads(1)

CFG = {"epochs": 25, "batch_size": 64, "lr": 2e-3, "bottleneck": 8, "noise": 0.3}


def snapshots(n, rng):
    modes = np.random.default_rng(5).normal(0, 1, (4, 32)) / np.sqrt(4 * 0.5)
    z = rng.normal(0, 1, (n, 4))
    clean = np.tanh(z @ modes)
    clean = (clean - clean.mean(0)) / clean.std(0) * np.sqrt(1 - CFG["noise"] ** 2)
    return (clean + rng.normal(0, CFG["noise"], clean.shape)).astype(np.float32)


def main():
    rng = np.random.default_rng(150)
    x_tr = torch.tensor(snapshots(5000, rng))
    x_va = torch.tensor(snapshots(1000, rng))
    dl = DataLoader(TensorDataset(x_tr), batch_size=CFG["batch_size"], shuffle=True)
    b = CFG["bottleneck"]
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, b),
                          nn.Linear(b, 64), nn.ReLU(), nn.Linear(64, 32))
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    crit = nn.MSELoss()
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss"])
        for epoch in range(CFG["epochs"]):
            model.train()
            run, n = 0.0, 0
            for (xb,) in dl:
                loss = crit(model(xb), xb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                run += loss.item() * len(xb); n += len(xb)
            model.eval()
            with torch.no_grad():
                vl = crit(model(x_va), x_va).item()
            w.writerow([step, epoch, f"{run / n:.5f}", f"{vl:.5f}"])
            print(f"epoch {epoch:2d} step {step}  train {run / n:.4f}  val {vl:.4f}")


if __name__ == "__main__":
    main()
