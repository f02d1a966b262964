"""Predict a subscriber's engagement tier (0-4) from 30 days of app-activity counts with a GRU."""
import json

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(74)
rng = np.random.default_rng(74)

DAYS, N_TIERS, N_SIGNALS = 30, 5, 3


def activity(n):
    tier = rng.integers(0, N_TIERS, n)
    base = 0.5 + 0.6 * tier[:, None, None]
    trend = rng.normal(0, 0.02, size=(n, 1, N_SIGNALS)) * np.arange(DAYS)[None, :, None]
    weekly = 0.3 * np.sin(2 * np.pi * np.arange(DAYS) / 7)[None, :, None]
    x = np.log1p(rng.poisson(np.exp(base + trend + weekly)))
    return torch.tensor(x, dtype=torch.float32), torch.tensor(tier)


class TierModel(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.gru = nn.GRU(N_SIGNALS, hidden, batch_first=True)
        self.head = nn.Sequential(nn.Linear(hidden, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        _, h = self.gru(x)
        return self.head(h[-1])


def predict_tier(out):
    return (torch.sigmoid(out.squeeze(1)) * (N_TIERS - 1)).round().long()


x_train, y_train = activity(2000)
x_val, y_val = activity(500)
model = TierModel()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
criterion = nn.BCEWithLogitsLoss()

with open("metrics.jsonl", "w") as log:
    step = 0
    for epoch in range(8):
        perm = torch.randperm(len(x_train))
        for i in range(0, len(perm), 64):
            idx = perm[i:i + 64]
            out = model(x_train[idx])
            loss = criterion(out, y_train[idx].float().unsqueeze(1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 5 == 0:
                with torch.no_grad():
                    vout = model(x_val)
                    vloss = criterion(vout, y_val.float().unsqueeze(1)).item()
                    vacc = (predict_tier(vout) == y_val).float().mean().item()
                log.write(json.dumps({"step": step, "epoch": epoch, "loss": round(loss.item(), 5),
                                      "val_loss": round(vloss, 5), "val_accuracy": round(vacc, 4)}) + "\n")
            step += 1
        print(f"epoch {epoch}  loss {loss.item():.4f}  val loss {vloss:.4f}  val acc {vacc:.3f}")
