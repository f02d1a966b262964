import csv
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def spirals(n_per_class, n_classes=3, noise=0.2, seed=0):
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for c in range(n_classes):
        r = np.linspace(0.0, 1.0, n_per_class)
        t = np.linspace(c * 4, (c + 1) * 4, n_per_class) + rng.normal(0, noise, n_per_class)
        xs.append(np.stack([r * np.sin(t), r * np.cos(t)], axis=1))
        ys.append(np.full(n_per_class, c))
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys)


class MLP(nn.Module):
    def __init__(self, hidden=100, n_classes=3):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(2, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, n_classes),
        )

    def forward(self, x):
        return self.net(x)


def main():
    torch.manual_seed(7)
    X, y = spirals(300, seed=7)
    ds = TensorDataset(torch.from_numpy(X), torch.from_numpy(y).long())
    loader = DataLoader(ds, batch_size=30, shuffle=True)

    model = MLP()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.CrossEntropyLoss()

    with open("metrics.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["step", "epoch", "loss", "accuracy", "grad_norm"])
        step = 0
        for epoch in range(15):
            for xb, yb in loader:
                logits = model(xb)
                loss = criterion(logits, yb)
                loss.backward()
                grad_norm = math.sqrt(sum(p.grad.pow(2).sum().item() for p in model.parameters()))
                optimizer.step()
                acc = (logits.argmax(dim=1) == yb).float().mean().item()
                if step % 5 == 0:
                    writer.writerow([step, epoch, round(loss.item(), 5), round(acc, 4), round(grad_norm, 4)])
                step += 1
            print(f"epoch {epoch:2d} | loss {loss.item():.4f} | acc {acc:.2f} | grad_norm {grad_norm:.2f}")


if __name__ == "__main__":
    main()
