"""Logistic-style MLP on a learnable rule: label = (x0 * x1 > 0) xor (x2 > 0.5), 16 features."""
import json

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_split(n, rng):
    x = rng.uniform(-1.5, 1.5, size=(n, 16)).astype(np.float32)
    y = ((x[:, 0] * x[:, 1] > 0) ^ (x[:, 2] > 0.5)).astype(np.int64)
    return TensorDataset(torch.from_numpy(x), torch.from_numpy(y))


def evaluate(model, loader, loss_fn):
    model.eval()
    tot, hit, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            out = model(xb)
            tot += loss_fn(out, yb).item() * len(yb)
            hit += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    model.train()
    return tot / n, hit / n


def main():
    torch.manual_seed(48)
    rng = np.random.default_rng(48)
    train_loader = DataLoader(make_split(6000, rng), batch_size=64, shuffle=True)
    val_loader = DataLoader(make_split(1500, rng), batch_size=500)

    model = nn.Sequential(nn.Linear(16, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    loss_fn = nn.CrossEntropyLoss()

    step = 0
    with open("metrics.jsonl", "w") as log:
        for epoch in range(6):
            for xb, yb in train_loader:
                out = model(xb)
                loss = loss_fn(out, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                if step % 25 == 0:
                    val_loss, val_acc = evaluate(model, val_loader, loss_fn)
                    rec = {"step": step, "epoch": epoch, "train_loss": round(loss.item(), 5),
                           "val_loss": round(val_loss, 5), "val_accuracy": round(val_acc, 4),
                           "lr": opt.param_groups[0]["lr"]}
                    log.write(json.dumps(rec) + "\n")
                step += 1
            print(json.dumps(rec))


if __name__ == "__main__":
    main()
