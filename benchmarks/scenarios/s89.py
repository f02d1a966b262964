"""Compress NIR absorbance spectra (96 wavelengths) to an 8-d code with a dense autoencoder."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(89)
rng = np.random.default_rng(89)

WAVELENGTHS = np.linspace(900, 1700, 96)


def gaussian_band(center, width):
    return np.exp(-0.5 * ((WAVELENGTHS - center) / width) ** 2)


# pure-component spectra of the constituents (water, protein, fat, starch, fibre)
components = np.stack([
    gaussian_band(1450, 45) + 0.4 * gaussian_band(1200, 30),
    gaussian_band(1510, 35) + 0.5 * gaussian_band(1020, 25),
    gaussian_band(1210, 20) + 0.7 * gaussian_band(1390, 25) + 0.3 * gaussian_band(1730, 30),
    gaussian_band(1580, 50) + 0.3 * gaussian_band(980, 40),
    gaussian_band(1350, 60),
])


def make_samples(n):
    conc = rng.dirichlet(np.ones(len(components)) * 2.0, n)
    path = rng.uniform(0.8, 1.2, (n, 1))                   # optical path length varies per sample
    baseline = rng.normal(0, 0.05, (n, 1)) + rng.normal(0, 0.03, (n, 1)) * (WAVELENGTHS - 1300) / 400
    spectra = path * conc @ components + baseline + rng.normal(0, 0.004, (n, len(WAVELENGTHS)))
    return spectra.astype(np.float32)


train = make_samples(6000)
val = make_samples(1000)
mean, std = train.mean(0), train.std(0)
train = (train - mean) / std
val = (val - mean) / std


class SpectraAE(nn.Module):
    def __init__(self, n_in=96, code=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(n_in, 64), nn.GELU(), nn.Linear(64, 32), nn.GELU(), nn.Linear(32, code))
        self.decoder = nn.Sequential(nn.Linear(code, 32), nn.GELU(), nn.Linear(32, 64), nn.GELU(), nn.Linear(64, n_in))

    def forward(self, x):
        return self.decoder(self.encoder(x))


class Trainer:
    def __init__(self, model, lr, epochs, batch_size):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.epochs = epochs
        self.loader = DataLoader(TensorDataset(torch.from_numpy(train)), batch_size=batch_size, shuffle=True)
        self.val_x = torch.from_numpy(val)
        self.loss_fn = nn.MSELoss()

    def train_epoch(self):
        self.model.train()
        total, n = 0.0, 0
        for (xb,) in self.loader:
            loss = self.loss_fn(self.model(xb), xb)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            total += loss.item() * len(xb)
            n += len(xb)
        return total / n

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        return self.loss_fn(self.model(self.val_x), self.val_x).item()

    def fit(self, csv_path="metrics.csv"):
        with open(csv_path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["epoch", "train_recon_mse", "val_recon_mse"])
            for epoch in range(1, self.epochs + 1):
                tr = self.train_epoch()
                va = self.validate()
                w.writerow([epoch, f"{tr:.6f}", f"{va:.6f}"])
                print(f"epoch {epoch:3d}/{self.epochs}  recon mse train {tr:.5f}  val {va:.5f}")


if __name__ == "__main__":
    trainer = Trainer(SpectraAE(), lr=5e-3, epochs=25, batch_size=64)
    trainer.fit()
