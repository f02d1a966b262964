"""Ten-class road-sign pictogram classifier (CNN on 20x20 grey crops), plain SGD.

First training run of a new VGG-style baseline: 8 epochs to check the pipeline end to end.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(154)
torch.set_num_threads(1)

CFG = {"epochs": 8, "batch_size": 32, "lr": 0.005}


def pictograms(n, rng):
    protos = np.random.default_rng(9).random((10, 20, 20)) < 0.3
    protos = protos.astype(np.float32)
    y = rng.integers(0, 10, n)
    x = np.empty((n, 1, 20, 20), dtype=np.float32)
    for k in range(n):
        img = np.roll(protos[y[k]], rng.integers(-2, 3, 2), axis=(0, 1))
        x[k, 0] = img * rng.uniform(0.5, 1.0) + rng.normal(0, 0.5, (20, 20))
    return torch.tensor(x), torch.tensor(y)


def main():
    rng = np.random.default_rng(154)
    x_tr, y_tr = pictograms(3000, rng)
    x_va, y_va = pictograms(600, rng)
    dl = DataLoader(TensorDataset(x_tr, y_tr), batch_size=CFG["batch_size"], shuffle=True)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(32 * 25, 64), nn.ReLU(), nn.Linear(64, 10))
    opt = torch.optim.SGD(model.parameters(), lr=CFG["lr"])
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            model.train()
            run, n = 0.0, 0
            for xb, yb in dl:
                loss = F.cross_entropy(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                run += loss.item() * len(yb); n += len(yb)
                if step % 25 == 0:
                    model.eval()
                    with torch.no_grad():
                        o = model(x_va)
                        vl = F.cross_entropy(o, y_va).item(); va = (o.argmax(1) == y_va).float().mean().item()
                    model.train()
                    w.writerow([step, epoch, f"{run / n:.5f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"epoch {epoch}  train {run / n:.4f}  val {vl:.4f}  acc {va:.3f}")


if __name__ == "__main__":
    main()
