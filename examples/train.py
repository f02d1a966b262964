"""A small classifier that does not learn — traindx's bundled example.

    traindx diagnose --script examples/train.py --non-interactive

Writes metrics.csv (epoch, step, loss, accuracy) beside where it is run, like many training scripts.
"""

import argparse
import csv

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=3e-6)
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--batch-size", type=int, default=64)
args = parser.parse_args()

torch.manual_seed(0)
num_classes, dim = 10, 32
centers = torch.randn(num_classes, dim) * 3
y = torch.randint(0, num_classes, (4000,))
x = centers[y] + torch.randn(4000, dim)
loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, shuffle=True)

model = nn.Sequential(nn.Linear(dim, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, num_classes))
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    log = csv.writer(fh)
    log.writerow(["epoch", "step", "loss", "accuracy"])
    step = 0
    for epoch in range(args.epochs):
        for xb, yb in loader:
            optimizer.zero_grad()
            out = model(xb)
            loss = criterion(out, yb)
            loss.backward()
            optimizer.step()
            acc = (out.argmax(1) == yb).float().mean().item()
            log.writerow([epoch, step, f"{loss.item():.5f}", f"{acc:.4f}"])
            step += 1
        print(f"epoch {epoch}: loss {loss.item():.4f}")
