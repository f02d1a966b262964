"""Convolutional autoencoder that compresses 16x16 thermal-camera tiles (hot spots on a smooth background)."""
import json

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def thermal_tiles(n, rng, size=16):
    yy, xx = np.mgrid[0:size, 0:size] / (size - 1)
    gx, gy = rng.uniform(-0.5, 0.5, size=(2, n, 1, 1))
    img = 0.3 + gx * (xx - 0.5) + gy * (yy - 0.5)
    for _ in range(3):
        cx, cy = rng.uniform(0.1, 0.9, size=(2, n, 1, 1))
        r = rng.uniform(0.06, 0.18, size=(n, 1, 1))
        amp = rng.uniform(0.0, 0.7, size=(n, 1, 1))
        img = img + amp * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r ** 2))
    img = img + rng.normal(0, 0.02, size=img.shape)
    return torch.tensor(img[:, None], dtype=torch.float32)


class ConvAutoencoder(nn.Module):
    def __init__(self, code=24):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.ReLU(),      # 8x8
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),     # 4x4
            nn.Flatten(), nn.Linear(32 * 4 * 4, code),
        )
        self.decoder = nn.Sequential(
            nn.Linear(code, 32 * 4 * 4), nn.ReLU(), nn.Unflatten(1, (32, 4, 4)),
            nn.ConvTranspose2d(32, 16, 4, stride=2, padding=1), nn.ReLU(),   # 8x8
            nn.ConvTranspose2d(16, 1, 4, stride=2, padding=1),               # 16x16
        )

    def forward(self, x):
        return self.decoder(self.encoder(x))


def run():
    torch.manual_seed(78)
    rng = np.random.default_rng(78)
    train = DataLoader(TensorDataset(thermal_tiles(1600, rng)), batch_size=64, shuffle=True)
    val_x = thermal_tiles(400, rng)

    model = ConvAutoencoder()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    mse = nn.MSELoss()
    with open("metrics.jsonl", "w") as log:
        step = 0
        for epoch in range(11):
            model.train()
            running = 0.0
            for (x,) in train:
                loss = mse(model(x), x)
                opt.zero_grad()
                loss.backward()
                opt.step()
                running += loss.item() * len(x)
                step += 1
            model.eval()
            with torch.no_grad():
                val_loss = mse(model(val_x), val_x).item()
            train_loss = running / len(train.dataset)
            log.write(json.dumps({"epoch": epoch, "step": step, "loss": round(train_loss, 6),
                                  "val_loss": round(val_loss, 6)}) + "\n")
            print(f"epoch {epoch:2d}  train mse {train_loss:.5f}  val mse {val_loss:.5f}")


if __name__ == "__main__":
    run()
