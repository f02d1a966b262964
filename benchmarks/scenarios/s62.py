"""Locate the centre of a bright blob in 20x20 microscope crops (coordinate regression)."""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(62)
rng = np.random.default_rng(62)
SIZE = 20

config = {"epochs": 20, "batch_size": 50, "lr": 2e-3, "weight_decay": 1e-4}


def crops(n):
    yy, xx = np.mgrid[0:SIZE, 0:SIZE]
    centres = rng.uniform(3, SIZE - 3, size=(n, 2))
    width = rng.uniform(1.5, 3.0, size=(n, 1, 1))
    img = np.exp(-((xx[None] - centres[:, 0, None, None]) ** 2 + (yy[None] - centres[:, 1, None, None]) ** 2)
                 / (2 * width ** 2))
    img += rng.normal(0, 0.15, img.shape)
    target = (centres - SIZE / 2) / (SIZE / 2)          # scaled to [-1, 1]
    return torch.tensor(img[:, None], dtype=torch.float32), torch.tensor(target, dtype=torch.float32)


class Locator(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 5 * 5, 64)
        self.fc2 = nn.Linear(64, 2)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


x_train, t_train = crops(600)
x_val, t_val = crops(200)
loader = DataLoader(TensorDataset(x_train, t_train), batch_size=config["batch_size"], shuffle=True)

model = Locator()
optimizer = torch.optim.AdamW(model.parameters(), lr=config["lr"], weight_decay=config["weight_decay"])
# linear decay to zero over the run
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: max(0.0, 1 - e / config["epochs"]))

def val_mse():
    model.eval()
    with torch.no_grad():
        out = F.mse_loss(model(x_val), t_val).item()
    model.train()
    return out


with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "loss", "val_loss", "lr"])
    step = 0
    for epoch in range(config["epochs"]):
        model.train()
        for xb, tb in loader:
            optimizer.zero_grad()
            loss = F.mse_loss(model(xb), tb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            if step % 6 == 0:
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{val_mse():.5f}", f"{optimizer.param_groups[0]['lr']:.3e}"])
            step += 1
        if epoch % 3 == 0:
            print(f"epoch {epoch:2d}  loss {loss.item():.4f}  val mse {val_mse():.4f}  lr {optimizer.param_groups[0]['lr']:.2e}")
