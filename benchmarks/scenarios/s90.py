"""Crop-type mapping: classify field parcels into 5 crops from 12 multi-date vegetation-index features."""
import csv
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "n_features": 12,
    "crops": ["wheat", "maize", "rapeseed", "sugar_beet", "grassland"],
    "n_train": 8000,
    "n_val": 2000,
    "hidden": 128,
    "batch_size": 64,
    "epochs": 15,
    "lr": 0.005,
    "momentum": 0.9,
    "weight_decay": 0.1,
    "seed": 90,
}


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def simulate_parcels(cfg):
    """NDVI/NDWI time-series summaries per parcel; crop identity is a non-linear function of them."""
    rng = np.random.default_rng(cfg["seed"])
    d, k = cfg["n_features"], len(cfg["crops"])
    phenology = rng.normal(size=(d, 24))
    crop_response = rng.normal(size=(24, k))

    def draw(n):
        x = rng.normal(size=(n, d))
        affinity = np.tanh(1.5 * x @ phenology / np.sqrt(d)) @ crop_response
        affinity += rng.normal(0, 0.5, affinity.shape)      # cloud gaps, mixed pixels
        y = affinity.argmax(1)
        return torch.tensor(x, dtype=torch.float32), torch.tensor(y)

    return draw(cfg["n_train"]), draw(cfg["n_val"])


def make_model(cfg):
    h = cfg["hidden"]
    return nn.Sequential(
        nn.Linear(cfg["n_features"], h), nn.ReLU(),
        nn.Linear(h, h), nn.ReLU(),
        nn.Linear(h, len(cfg["crops"])),
    )


@torch.no_grad()
def score(model, x, y, loss_fn):
    model.eval()
    out = model(x)
    return loss_fn(out, y).item(), (out.argmax(1) == y).float().mean().item()


def main(cfg):
    seed_everything(cfg["seed"])
    (x_tr, y_tr), (x_va, y_va) = simulate_parcels(cfg)
    print("parcels per crop:", dict(zip(cfg["crops"], torch.bincount(y_tr).tolist())))
    loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=cfg["batch_size"], shuffle=True)

    model = make_model(cfg)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"],
                                weight_decay=cfg["weight_decay"])
    loss_fn = nn.CrossEntropyLoss()

    with open("metrics.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
        for epoch in range(1, cfg["epochs"] + 1):
            model.train()
            for xb, yb in loader:
                optimizer.zero_grad()
                loss_fn(model(xb), yb).backward()
                optimizer.step()
            tr_loss, tr_acc = score(model, x_tr, y_tr, loss_fn)
            va_loss, va_acc = score(model, x_va, y_va, loss_fn)
            writer.writerow([epoch, round(tr_loss, 4), round(tr_acc, 4), round(va_loss, 4), round(va_acc, 4)])
            print(f"epoch {epoch:2d} | train loss {tr_loss:.4f} acc {tr_acc:.3f} | "
                  f"val loss {va_loss:.4f} acc {va_acc:.3f}")


if __name__ == "__main__":
    main(CONFIG)
