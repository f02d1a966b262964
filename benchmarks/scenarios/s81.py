"""Soil-type classifier (5 types) from a lab panel of 14 measurements; the pilot survey has 150 labelled cores."""
import json

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

np.random.seed(81)
torch.manual_seed(81)

SOIL_TYPES = ["clay", "silt", "sand", "loam", "peat"]
N_FEATURES = 14


def survey(n, seed):
    r = np.random.RandomState(seed)
    proto = np.random.RandomState(0).normal(0, 0.8, size=(len(SOIL_TYPES), N_FEATURES))
    y = r.randint(0, len(SOIL_TYPES), size=n)
    x = proto[y] + r.normal(0, 1.0, size=(n, N_FEATURES))
    return x.astype(np.float32), y


x_train, y_train = survey(150, 1)
x_val, y_val = survey(600, 2)
mean, std = x_train.mean(0), x_train.std(0)
x_train, x_val = (x_train - mean) / std, (x_val - mean) / std

train_loader = DataLoader(TensorDataset(torch.tensor(x_train), torch.tensor(y_train)), batch_size=25, shuffle=True)
xv, yv = torch.tensor(x_val), torch.tensor(y_val)

model = nn.Sequential(
    nn.Linear(N_FEATURES, 512), nn.ReLU(),
    nn.Linear(512, 512), nn.ReLU(),
    nn.Linear(512, 512), nn.ReLU(),
    nn.Linear(512, len(SOIL_TYPES)),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()

with open("metrics.jsonl", "w") as log:
    for epoch in range(1, 61):
        model.train()
        seen, loss_sum, hits = 0, 0.0, 0
        for xb, yb in train_loader:
            logits = model(xb)
            loss = loss_fn(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            seen += len(yb)
            loss_sum += loss.item() * len(yb)
            hits += (logits.argmax(1) == yb).sum().item()
        model.eval()
        with torch.no_grad():
            vlogits = model(xv)
            val_loss = loss_fn(vlogits, yv).item()
            val_acc = (vlogits.argmax(1) == yv).float().mean().item()
        rec = {"epoch": epoch, "train_loss": round(loss_sum / seen, 5), "train_acc": round(hits / seen, 4),
               "val_loss": round(val_loss, 5), "val_acc": round(val_acc, 4)}
        log.write(json.dumps(rec) + "\n")
        if epoch % 10 == 0:
            print(rec)
