import csv
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {
    "seed": 14,
    "n_samples": 4000,
    "n_features": 10,
    "hidden": 128,
    "batch_size": 64,
    "epochs": 8,
    "lr": 0.3,
    "log_every": 5,
}


def rule_dataset(n, d, rng):
    X = rng.uniform(-1, 1, size=(n, d)).astype(np.float32)
    a = X[:, 0] + X[:, 1]
    b = X[:, 2] - X[:, 3]
    y = (a > 0).astype(np.int64) * 2 + (b > 0).astype(np.int64)
    return torch.from_numpy(X), torch.from_numpy(y)


class RuleNet(nn.Module):
    def __init__(self, d, hidden, n_out):
        super().__init__()
        self.l1 = nn.Linear(d, hidden)
        self.l2 = nn.Linear(hidden, hidden)
        self.l3 = nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.l3(F.relu(self.l2(F.relu(self.l1(x)))))


def main(cfg):
    torch.manual_seed(cfg["seed"])
    rng = np.random.default_rng(cfg["seed"])
    X, y = rule_dataset(cfg["n_samples"], cfg["n_features"], rng)
    loader = DataLoader(TensorDataset(X, y), batch_size=cfg["batch_size"], shuffle=True)
    model = RuleNet(cfg["n_features"], cfg["hidden"], 4)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])

    f = open("metrics.csv", "w", newline="")
    log = csv.writer(f)
    log.writerow(["step", "epoch", "loss", "accuracy", "lr"])
    step = 0
    for epoch in range(cfg["epochs"]):
        for xb, yb in loader:
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % cfg["log_every"] == 0:
                acc = (logits.argmax(1) == yb).float().mean().item()
                log.writerow([step, epoch, f"{loss.item():.5f}", f"{acc:.4f}", cfg["lr"]])
            step += 1
        print(f"epoch {epoch}: last loss {loss.item():.4f}")
    f.close()


if __name__ == "__main__":
    main(CONFIG)
