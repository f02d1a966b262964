"""Classify 5 gaussian clusters in 12-d with a 3-layer MLP."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def weights_init(m):
    if isinstance(m, nn.Linear):
        m.weight.data.fill_(0.01)
        nn.init.zeros_(m.bias)


def build_model(d_in, n_out):
    model = nn.Sequential(
        nn.Linear(d_in, 128), nn.Tanh(),
        nn.Linear(128, 128), nn.Tanh(),
        nn.Linear(128, n_out),
    )
    model.apply(weights_init)
    return model


def main():
    torch.manual_seed(31)
    rng = np.random.default_rng(31)
    centers = rng.normal(0, 2.5, size=(5, 12))
    y = rng.integers(0, 5, 2500)
    x = centers[y] + rng.normal(size=(2500, 12))
    x_t, y_t = torch.tensor(x, dtype=torch.float32), torch.tensor(y)
    train = TensorDataset(x_t[:2000], y_t[:2000])
    xv, yv = x_t[2000:], y_t[2000:]
    loader = DataLoader(train, batch_size=40, shuffle=True)

    model = build_model(12, 5)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    ce = nn.CrossEntropyLoss()
    with open("metrics.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step", "epoch", "loss", "val_loss", "accuracy", "val_accuracy"])
        step = 0
        for epoch in range(8):
            for xb, yb in loader:
                out = model(xb)
                loss = ce(out, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if step % 10 == 0:
                    with torch.no_grad():
                        vo = model(xv)
                        w.writerow([step, epoch, round(loss.item(), 5), round(ce(vo, yv).item(), 5),
                                    round((out.argmax(1) == yb).float().mean().item(), 4),
                                    round((vo.argmax(1) == yv).float().mean().item(), 4)])
            print(f"epoch {epoch}  loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
