"""Three-class risk model on 10 engineered features; 3 hidden ReLU layers."""
import csv

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class RiskModel(nn.Module):
    def __init__(self, n_in=10, width=64, n_out=3):
        super().__init__()
        self.hidden = nn.Sequential(
            nn.Linear(n_in, width), nn.ReLU(),
            nn.Linear(width, width), nn.ReLU(),
            nn.Linear(width, width), nn.ReLU(),
        )
        self.head = nn.Linear(width, n_out)

    def forward(self, x):
        return self.head(self.hidden(x))


class Trainer:
    def __init__(self, model, lr, momentum, log_path="metrics.csv"):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
        self.loss_fn = nn.CrossEntropyLoss()
        self.log = open(log_path, "w", newline="")
        self.writer = csv.writer(self.log)
        self.writer.writerow(["step", "epoch", "loss", "accuracy", "lr"])
        self.step = 0

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            tot, hits, n = 0.0, 0, 0
            for xb, yb in loader:
                out = self.model(xb)
                loss = self.loss_fn(out, yb)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                if self.step % 5 == 0:
                    acc = (out.argmax(1) == yb).float().mean().item()
                    self.writer.writerow([self.step, epoch, round(loss.item(), 5), round(acc, 4),
                                          self.opt.param_groups[0]["lr"]])
                tot += loss.item() * len(yb)
                hits += (out.argmax(1) == yb).sum().item()
                n += len(yb)
                self.step += 1
            print(f"epoch {epoch}: loss {tot / n:.4f}  acc {hits / n:.3f}")
        self.log.close()


def make_data(n=3000):
    g = torch.Generator().manual_seed(18)
    raw = torch.randn(n, 10, generator=g) * 3 + 2
    y = (raw[:, 0] * raw[:, 1] > 4).long() + (raw[:, 2] > 2).long()
    x = (raw - raw.mean(0)) / raw.std(0)
    return TensorDataset(x, y)


if __name__ == "__main__":
    torch.manual_seed(18)
    loader = DataLoader(make_data(), batch_size=50, shuffle=True)
    trainer = Trainer(RiskModel(), lr=0.5, momentum=0.9)
    trainer.fit(loader, epochs=6)
    with torch.no_grad():
        h = trainer.model.hidden(loader.dataset.tensors[0])
        print("fraction of units never active:", ((h > 0).sum(0) == 0).float().mean().item())
