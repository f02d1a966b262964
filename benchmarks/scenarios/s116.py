"""Convolutional autoencoder for solar-cell electroluminescence (EL) tiles.

Trained on defect-free cells only; the reconstruction error is later used as an anomaly
score for cracked / inactive cells.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(116)
rng = np.random.default_rng(116)

TILE = 32
BORDER = 1          # trim the busbar frame that the EL camera leaves on each tile


def synth_cell(n):
    yy, xx = np.mgrid[0:TILE, 0:TILE] / TILE
    tiles = []
    for _ in range(n):
        base = 0.6 + 0.15 * rng.standard_normal()
        img = base - 0.25 * ((xx - 0.5) ** 2 + (yy - 0.5) ** 2)          # darker corners
        for f in rng.choice(np.arange(4, TILE - 4), 3, replace=False):  # finger lines
            img[:, f] -= 0.08
        img[0, :] = img[-1, :] = img[:, 0] = img[:, -1] = 0.05            # frame
        img += rng.normal(0, 0.03, img.shape)
        tiles.append(img)
    return np.clip(np.stack(tiles), 0, 1).astype(np.float32)[:, None]


def preprocess(tiles):
    return tiles[:, :, BORDER:-BORDER, BORDER:-BORDER]


class ConvAE(nn.Module):
    def __init__(self, code=32):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, code, 3, padding=1),
        )
        self.dec = nn.Sequential(
            nn.ConvTranspose2d(code, 16, 4, stride=2, padding=1), nn.ReLU(),
            nn.ConvTranspose2d(16, 1, 4, stride=2, padding=1), nn.Sigmoid(),
        )

    def forward(self, x):
        return self.dec(self.enc(x))


def train(model, loader, val_x, epochs=10, lr=1e-3):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "step", "train_mse", "val_mse"])
        step = 0
        for epoch in range(epochs):
            model.train()
            run = 0.0
            for (xb,) in loader:
                recon = model(xb)
                loss = F.mse_loss(recon, xb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                run += loss.item() * len(xb)
            model.eval()
            with torch.no_grad():
                val = F.mse_loss(model(val_x), val_x).item()
            tr = run / len(loader.dataset)
            w.writerow([epoch, step, f"{tr:.6f}", f"{val:.6f}"])
            print(f"epoch {epoch}  step {step}  train mse {tr:.5f}  val mse {val:.5f}")


if __name__ == "__main__":
    x_train = torch.from_numpy(preprocess(synth_cell(1600)))
    x_val = torch.from_numpy(preprocess(synth_cell(400)))
    print("tiles:", tuple(x_train.shape))
    loader = DataLoader(TensorDataset(x_train), batch_size=32, shuffle=True)
    train(ConvAE(), loader, x_val)
