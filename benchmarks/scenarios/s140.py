"""Land-cover classification of multispectral pixels (6 classes, 10 bands).

Training tiles are exported class by class from the labelling tool and concatenated in that
order; a DataLoader feeds the MLP.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(140)
torch.set_num_threads(1)

CLASSES = ["water", "forest", "cropland", "urban", "bare", "grass"]
CFG = {"epochs": 8, "batch_size": 64, "lr": 5e-3, "per_class": 800}


def export_tiles(per_class, rng):
    centers = np.random.default_rng(7).normal(0, 1.0, (len(CLASSES), 10))
    xs, ys = [], []
    for c in range(len(CLASSES)):          # the labelling tool exports one class at a time
        xs.append(centers[c] + rng.normal(0, 0.9, (per_class, 10)))
        ys.append(np.full(per_class, c))
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys)


def main():
    rng = np.random.default_rng(140)
    x_tr, y_tr = export_tiles(CFG["per_class"], rng)
    x_va, y_va = export_tiles(200, rng)
    mu, sd = x_tr.mean(0), x_tr.std(0)
    train_ds = TensorDataset(torch.tensor((x_tr - mu) / sd), torch.tensor(y_tr))
    x_va, y_va = torch.tensor((x_va - mu) / sd), torch.tensor(y_va)
    train_dl = DataLoader(train_ds, batch_size=CFG["batch_size"], shuffle=False)

    model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, len(CLASSES)))
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            model.train()
            for xb, yb in train_dl:
                loss = F.cross_entropy(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if step % 5 == 0:
                    model.eval()
                    with torch.no_grad():
                        out = model(x_va)
                        vl = F.cross_entropy(out, y_va).item()
                        va = (out.argmax(1) == y_va).float().mean().item()
                    model.train()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"epoch {epoch} step {step}  train {loss.item():.4f}  val {vl:.4f}  acc {va:.3f}")


if __name__ == "__main__":
    main()
