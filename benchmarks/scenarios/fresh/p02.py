"""House price regression from listing features."""
import json

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(2)
rng = np.random.default_rng(2)


def make_listings(n):
    sqft = rng.uniform(500, 5000, n)
    year = rng.integers(1900, 2021, n).astype(float)
    lot = rng.lognormal(9.0, 0.8, n)
    rooms = rng.integers(1, 9, n).astype(float)
    dist_km = rng.uniform(0.2, 50, n)
    school = rng.uniform(1, 10, n)
    price = (0.9 * (sqft / 1000) ** 1.1 + 0.4 * np.log(lot / 5000) + 0.15 * rooms
             + 0.5 * np.exp(-dist_km / 10) * school / 5 + 0.01 * (year - 1960).clip(0) + 0.5)
    price += rng.normal(0, 0.1, n)
    X = np.stack([sqft, year, lot, rooms, dist_km, school], 1).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(price.astype(np.float32)).unsqueeze(1)


X_train, y_train = make_listings(3000)
X_val, y_val = make_listings(600)
train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=128, shuffle=True)

model = nn.Sequential(
    nn.Linear(6, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 1),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.MSELoss()

print(f"target mean {y_train.mean():.3f} var {y_train.var():.3f}")
step = 0
with open("metrics.jsonl", "w") as log:
    for epoch in range(20):
        model.train()
        for xb, yb in train_loader:
            pred = model(xb)
            loss = loss_fn(pred, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 10 == 0:
                log.write(json.dumps({"step": step, "epoch": epoch, "loss": loss.item()}) + "\n")
            step += 1
        model.eval()
        with torch.no_grad():
            val_loss = loss_fn(model(X_val), y_val).item()
        log.write(json.dumps({"step": step, "epoch": epoch, "loss": loss.item(), "val_loss": val_loss}) + "\n")
        log.flush()
        print(f"epoch {epoch:2d}  train_mse {loss.item():.4f}  val_mse {val_loss:.4f}")
