"""Convolutional autoencoder on synthetic 16x16 'sprite' images."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(27)
rng = np.random.default_rng(27)


def sprites(n):
    yy, xx = np.mgrid[0:16, 0:16]
    out = np.zeros((n, 1, 16, 16), np.float32)
    for i in range(n):
        for _ in range(rng.integers(1, 4)):
            cy, cx, s = rng.uniform(3, 13), rng.uniform(3, 13), rng.uniform(1.0, 2.5)
            out[i, 0] += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * s * s))
    return torch.from_numpy(np.clip(out, 0, 1))


class ConvAE(nn.Module):
    def __init__(self, latent=16):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Flatten(), nn.Linear(32 * 4 * 4, latent),
        )
        self.dec = nn.Sequential(
            nn.Linear(latent, 32 * 4 * 4), nn.ReLU(), nn.Unflatten(1, (32, 4, 4)),
            nn.ConvTranspose2d(32, 16, 4, stride=2, padding=1), nn.ReLU(),
            nn.ConvTranspose2d(16, 1, 4, stride=2, padding=1), nn.Sigmoid(),
        )

    def forward(self, x):
        return self.dec(self.enc(x))


train_x, val_x = sprites(1500), sprites(300)
loader = DataLoader(TensorDataset(train_x), batch_size=32, shuffle=True)
model = ConvAE()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.MSELoss()

with open("metrics.csv", "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["step", "epoch", "train_loss", "val_loss"])
    step = 0
    for epoch in range(6):
        model.train()
        optimizer.zero_grad()
        for (xb,) in loader:
            recon = model(xb)
            loss = criterion(recon, xb)
            loss.backward()
            optimizer.step()
            step += 1
            if step % 10 == 0:
                model.eval()
                with torch.no_grad():
                    vloss = criterion(model(val_x), val_x).item()
                model.train()
                writer.writerow([step, epoch, f"{loss.item():.6f}", f"{vloss:.6f}"])
        print(f"epoch {epoch}  recon_mse {loss.item():.5f}  val_mse {vloss:.5f}")
