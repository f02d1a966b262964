"""Bearing condition monitoring: classify 4 fault types from 24 vibration spectrum features."""
import json
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(69)
rng = np.random.default_rng(69)

N_FEATURES, N_CLASSES = 24, 4
CONDITIONS = ["healthy", "inner_race", "outer_race", "ball"]
signatures = rng.normal(0, 1.0, size=(N_CLASSES, N_FEATURES))


def vibration_features(n):
    cond = rng.integers(0, N_CLASSES, n)
    x = signatures[cond] + rng.normal(0, 0.9, size=(n, N_FEATURES))
    return torch.tensor(x, dtype=torch.float32), torch.tensor(cond)


class DeepClassifier(nn.Module):
    """Plenty of depth so the network can pick up subtle interactions between harmonics."""

    def __init__(self, n_in, n_out, width=48, depth=12):
        super().__init__()
        sizes = [n_in] + [width] * depth
        self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.out = nn.Linear(width, n_out)

    def forward(self, x):
        for layer in self.hidden:
            x = torch.sigmoid(layer(x))
        return self.out(x)


x_train, y_train = vibration_features(2400)
x_val, y_val = vibration_features(600)
loader = DataLoader(TensorDataset(x_train, y_train), batch_size=32, shuffle=True)

net = DeepClassifier(N_FEATURES, N_CLASSES)
opt = torch.optim.SGD(net.parameters(), lr=0.2)
loss_fn = nn.CrossEntropyLoss()

log = open("metrics.jsonl", "w")
step = 0
for epoch in range(6):
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn(net(xb), yb)
        loss.backward()
        opt.step()
        if step % 15 == 0:
            with torch.no_grad():
                vout = net(x_val)
                val_loss = loss_fn(vout, y_val).item()
                val_acc = (vout.argmax(1) == y_val).float().mean().item()
            rec = {"step": step, "epoch": epoch, "loss": round(loss.item(), 5),
                   "val_loss": round(val_loss, 5), "val_accuracy": round(val_acc, 4)}
            log.write(json.dumps(rec) + "\n")
        step += 1
    print(f"epoch {epoch}: loss {loss.item():.4f}  val loss {val_loss:.4f}  val acc {val_acc:.3f}")
log.close()
print(f"chance-level loss: {math.log(N_CLASSES):.4f}")
