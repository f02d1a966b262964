"""Predict whether a parcel arrives on time, a little late or very late from order data and the carrier."""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(70)
rng = np.random.default_rng(70)

N_CARRIERS, N_NUMERIC, N_CLASSES = 12, 8, 3
CONFIG = {"embed_dim": 6, "hidden": [64, 64], "bias_init": -5.0, "lr": 1e-3, "batch": 64, "epochs": 6}

carrier_effect = rng.normal(0, 1.0, size=N_CARRIERS)
feature_weights = rng.normal(0, 1.0, size=N_NUMERIC)


def orders(n):
    carrier = rng.integers(0, N_CARRIERS, n)
    num = rng.normal(0, 1.0, size=(n, N_NUMERIC))          # distance, weight, volume, hour, ... (standardised)
    score = num @ feature_weights / math.sqrt(N_NUMERIC) + carrier_effect[carrier] + 0.3 * num[:, 0] * num[:, 1]
    delay = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    return (torch.tensor(num, dtype=torch.float32), torch.tensor(carrier), torch.tensor(delay))


class DelayNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.carrier_emb = nn.Embedding(N_CARRIERS, cfg["embed_dim"])
        sizes = [N_NUMERIC + cfg["embed_dim"]] + cfg["hidden"]
        self.mlp = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.head = nn.Linear(sizes[-1], N_CLASSES)
        for layer in self.mlp:
            nn.init.constant_(layer.bias, cfg["bias_init"])

    def forward(self, num, carrier):
        h = torch.cat([num, self.carrier_emb(carrier)], dim=1)
        for layer in self.mlp:
            h = F.relu(layer(h))
        return self.head(h)


train = orders(3000)
val = orders(600)
model = DelayNet(CONFIG)
optimizer = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])

with open("metrics.csv", "w", newline="") as f:
    out = csv.writer(f)
    out.writerow(["epoch", "step", "train_loss", "train_acc", "val_loss", "val_acc"])
    step = 0
    for epoch in range(CONFIG["epochs"]):
        order = torch.randperm(len(train[2]))
        for i in range(0, len(order), CONFIG["batch"]):
            idx = order[i:i + CONFIG["batch"]]
            num, car, y = train[0][idx], train[1][idx], train[2][idx]
            logits = model(num, car)
            loss = F.cross_entropy(logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 10 == 0:
                with torch.no_grad():
                    vlogits = model(val[0], val[1])
                    vloss = F.cross_entropy(vlogits, val[2]).item()
                    vacc = (vlogits.argmax(1) == val[2]).float().mean().item()
                tacc = (logits.argmax(1) == y).float().mean().item()
                out.writerow([epoch, step, f"{loss.item():.5f}", f"{tacc:.4f}", f"{vloss:.5f}", f"{vacc:.4f}"])
            step += 1
        print(f"epoch {epoch}  train loss {loss.item():.4f}  val loss {vloss:.4f}  val acc {vacc:.3f}")
print(f"chance-level loss: {math.log(N_CLASSES):.4f}")
