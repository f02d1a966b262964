"""TinyVGG replica for 28x28 clothing thumbnails (10 classes), following the course notebook.

Two conv blocks of `hidden_units` channels, then a linear classifier.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(156)
torch.set_num_threads(1)

CFG = {"epochs": 3, "batch_size": 32, "lr": 0.1, "hidden_units": 10}


class TinyVGG(nn.Module):
    def __init__(self, input_shape, hidden_units, output_shape):
        super().__init__()
        self.block_1 = nn.Sequential(
            nn.Conv2d(input_shape, hidden_units, 3, stride=1, padding=1), nn.ReLU(),
            nn.Conv2d(hidden_units, hidden_units, 3, stride=1, padding=1), nn.ReLU(),
            nn.MaxPool2d(2))
        self.block_2 = nn.Sequential(
            nn.Conv2d(hidden_units, hidden_units, 3, padding=1), nn.ReLU(),
            nn.Conv2d(hidden_units, hidden_units, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2))
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(in_features=hidden_units, out_features=output_shape))

    def forward(self, x):
        return self.classifier(self.block_2(self.block_1(x)))


def thumbnails(n, rng):
    protos = np.random.default_rng(4).random((10, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, n)
    x = protos[y] * 0.6 + rng.random((n, 28, 28)).astype(np.float32) * 0.4
    return torch.tensor(x)[:, None], torch.tensor(y)


def main():
    rng = np.random.default_rng(156)
    x_tr, y_tr = thumbnails(2000, rng)
    x_va, y_va = thumbnails(400, rng)
    dl = DataLoader(TensorDataset(x_tr, y_tr), batch_size=CFG["batch_size"], shuffle=True)
    model = TinyVGG(1, CFG["hidden_units"], 10)
    opt = torch.optim.SGD(model.parameters(), lr=CFG["lr"])
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc"])
        fh.flush()
        for epoch in range(CFG["epochs"]):
            model.train()
            for xb, yb in dl:
                loss = F.cross_entropy(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
            model.eval()
            with torch.no_grad():
                o = model(x_va)
                vl = F.cross_entropy(o, y_va).item(); va = (o.argmax(1) == y_va).float().mean().item()
            w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"epoch {epoch}  train {loss.item():.4f}  val {vl:.4f}  acc {va:.3f}")


if __name__ == "__main__":
    main()
