import argparse
import csv

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(n, 6, generator=g) * 4 - 2
    y = torch.sin(x[:, 0]) * 2 + x[:, 1] * x[:, 2] - 0.5 * x[:, 3] ** 2 + 0.1 * torch.randn(n, generator=g)
    return x, y


class Regressor(nn.Module):
    def __init__(self, d_in, hidden):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(d_in, hidden), nn.Tanh(),
            nn.Linear(hidden, hidden), nn.Tanh(),
            nn.Linear(hidden, 1),
        )

    def forward(self, x):
        return self.body(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=25)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()

    torch.manual_seed(9)
    x, y = make_data(4000, seed=9)
    full = TensorDataset(x, y)
    train_set, val_set = random_split(full, [3200, 800], generator=torch.Generator().manual_seed(0))
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=256)

    model = Regressor(6, args.hidden)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.MSELoss()

    with open("metrics.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["epoch", "train_loss", "val_loss", "lr"])
        for epoch in range(args.epochs):
            model.train()
            running = 0.0
            for xb, yb in train_loader:
                pred = model(xb)
                loss = loss_fn(pred, yb)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                running += loss.item() * len(xb)
            train_loss = running / len(train_set)

            model.eval()
            with torch.no_grad():
                val_loss = sum(loss_fn(model(xb), yb).item() * len(xb) for xb, yb in val_loader) / len(val_set)
            w.writerow([epoch, round(train_loss, 5), round(val_loss, 5), args.lr])
            print(f"epoch {epoch:3d}  train_mse {train_loss:.4f}  val_mse {val_loss:.4f}")


if __name__ == "__main__":
    main()
