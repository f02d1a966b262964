"""Binary fraud-style classifier with a class-weighted BCE (positives are rare)."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(13)
np.random.seed(13)

N, D = 4000, 24
X = np.random.randn(N, D).astype(np.float32)
w = np.random.randn(D) * 0.6
score = X @ w - 2.5
y = (np.random.rand(N) < 1 / (1 + np.exp(-score))).astype(np.float32)
print(f"positive rate: {y.mean():.3f}")
POS_WEIGHT = float((1 - y.mean()) / y.mean())

ds = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
train_ds, val_ds = torch.utils.data.random_split(ds, [3200, 800], generator=torch.Generator().manual_seed(13))
train_dl = DataLoader(train_ds, batch_size=128, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=800)


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return torch.sigmoid(self.net(x)).squeeze(1)


def weighted_bce(probs, targets, pos_weight=POS_WEIGHT, eps=1e-7):
    p = np.clip(probs.detach().cpu().numpy(), eps, 1 - eps)
    t = targets.cpu().numpy()
    per_item = -(pos_weight * t * np.log(p) + (1 - t) * np.log(1 - p))
    return torch.tensor(per_item.mean(), dtype=torch.float32, requires_grad=True)


model = Scorer()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

with open("metrics.csv", "w", newline="") as fh:
    writer = csv.writer(fh)
    writer.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(12):
        model.train()
        for xb, yb in train_dl:
            loss = weighted_bce(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
        model.eval()
        with torch.no_grad():
            xv, yv = next(iter(val_dl))
            pv = model(xv)
            vloss = weighted_bce(pv, yv).item()
            vacc = ((pv > 0.5).float() == yv).float().mean().item()
        writer.writerow([step, epoch, round(loss.item(), 5), round(vloss, 5), round(vacc, 4)])
        print(f"epoch {epoch:2d}  loss {loss.item():.4f}  val_loss {vloss:.4f}  val_acc {vacc:.3f}")
