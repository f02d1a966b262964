"""Two-stage training: warm up the classifier head with the encoder frozen, then fine-tune everything."""
import argparse
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--warmup-epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=5e-3)
    p.add_argument("--batch-size", type=int, default=100)
    p.add_argument("--seed", type=int, default=26)
    return p.parse_args()


def make_data(n, rng):
    """8 classes: a checkerboard over two latent coordinates, seen through a random rotation in 16-d."""
    z = rng.uniform(-2, 2, size=(n, 2))
    cls = ((np.floor(z[:, 0]) + 2) + 4 * (np.floor(z[:, 1]) % 2)).astype(np.int64)
    rot, _ = np.linalg.qr(rng.normal(size=(16, 16)))
    x = np.concatenate([z, rng.normal(0, 0.1, size=(n, 14))], axis=1) @ rot
    return torch.tensor(x, dtype=torch.float32), torch.tensor(cls)


class Classifier(nn.Module):
    def __init__(self, d_in=16, hidden=128, n_classes=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.encoder(x))


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        out = model(x)
    model.train()
    return nn.functional.cross_entropy(out, y).item(), (out.argmax(1) == y).float().mean().item()


def main():
    args = get_args()
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    x, y = make_data(5000, rng)
    x_tr, y_tr, x_va, y_va = x[:4000], y[:4000], x[4000:], y[4000:]
    loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=args.batch_size, shuffle=True)

    model = Classifier()
    for p in model.encoder.parameters():
        p.requires_grad = False
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()

    with open("metrics.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy"])
        for epoch in range(args.epochs):
            if epoch == args.warmup_epochs:
                print("unfreezing encoder")
                model.encoder.requires_grad = True
            for xb, yb in loader:
                optimizer.zero_grad()
                loss = criterion(model(xb), yb)
                loss.backward()
                optimizer.step()
            tl, ta = accuracy(model, x_tr, y_tr)
            vl, va = accuracy(model, x_va, y_va)
            w.writerow([epoch, f"{tl:.5f}", f"{vl:.5f}", f"{ta:.4f}", f"{va:.4f}"])
            print(f"epoch {epoch:2d}  train {tl:.4f} ({ta:.3f})  val {vl:.4f} ({va:.3f})")


if __name__ == "__main__":
    main()
