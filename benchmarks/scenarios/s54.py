"""Predict a building's heating load from 8 design features (relative compactness, surface area, glazing, ...)."""
import json

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(54)
rng = np.random.default_rng(54)

CONFIG = {"hidden": 64, "lr": 1e-6, "batch_size": 64, "epochs": 15, "betas": (0.9, 0.999)}


def make_buildings(n):
    x = rng.normal(size=(n, 8))
    load = (1.8 * x[:, 0] - 1.1 * x[:, 1] + 0.9 * np.tanh(2 * x[:, 2]) + 0.6 * x[:, 3] * x[:, 4]
            + 0.4 * np.abs(x[:, 5]) + 0.3 * np.sin(3 * x[:, 6]))
    load = load + rng.normal(0, 0.3, size=n)
    return torch.tensor(x, dtype=torch.float32), torch.tensor(load, dtype=torch.float32).unsqueeze(1)


x_tr, y_tr = make_buildings(2000)
x_va, y_va = make_buildings(500)
y_mean, y_std = y_tr.mean(), y_tr.std()
y_tr, y_va = (y_tr - y_mean) / y_std, (y_va - y_mean) / y_std
loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=CONFIG["batch_size"], shuffle=True)

model = nn.Sequential(
    nn.Linear(8, CONFIG["hidden"]), nn.SiLU(),
    nn.Linear(CONFIG["hidden"], CONFIG["hidden"]), nn.SiLU(),
    nn.Linear(CONFIG["hidden"], 1),
)
optimizer = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"], betas=CONFIG["betas"])
loss_fn = nn.MSELoss()

with open("metrics.jsonl", "w") as log:
    for epoch in range(CONFIG["epochs"]):
        model.train()
        total = 0.0
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(xb)
        train_mse = total / len(x_tr)
        model.eval()
        with torch.no_grad():
            pred = model(x_va)
            val_mse = loss_fn(pred, y_va).item()
            r2 = 1 - val_mse / y_va.var(unbiased=False).item()
        log.write(json.dumps({"epoch": epoch, "train_loss": round(train_mse, 6), "val_loss": round(val_mse, 6),
                              "val_r2": round(r2, 4), "lr": CONFIG["lr"]}) + "\n")
        print(f"epoch {epoch:2d}  train mse {train_mse:.4f}  val mse {val_mse:.4f}  r2 {r2:.3f}")
