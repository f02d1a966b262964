"""Sleep-stage scoring from EEG band-power features (64 features per 30 s epoch, 4 stages): MLP with BatchNorm and dropout."""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(97)
rng = np.random.default_rng(97)

N_FEAT = 64
STAGES = ["wake", "N1/N2", "N3", "REM"]


def make_recordings(n, proto, mix):
    """Band powers: stage prototype + subject-specific offsets + lots of measurement noise."""
    y = rng.integers(0, len(STAGES), n)
    latent = proto[y] + 0.9 * rng.normal(size=(n, 8))
    x = np.tanh(latent @ mix) + 0.7 * rng.normal(size=(n, N_FEAT))
    return torch.tensor(x, dtype=torch.float32), torch.from_numpy(y)


proto = rng.normal(0, 0.9, size=(len(STAGES), 8))
mix = rng.normal(0, 0.5, size=(8, N_FEAT))
x_train, y_train = make_recordings(480, proto, mix)
x_val, y_val = make_recordings(600, proto, mix)


class StageNet(nn.Module):
    def __init__(self, hidden=256, p_drop=0.6):
        super().__init__()
        self.body = nn.Sequential(
            nn.Dropout(0.2), nn.Linear(N_FEAT, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p_drop),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p_drop),
        )
        self.out = nn.Linear(hidden, len(STAGES))

    def forward(self, x):
        return self.out(self.body(x))


def train_one_epoch(model, loader, optimizer):
    tot, hits, n = 0.0, 0, 0
    for xb, yb in loader:
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(yb)
        hits += (logits.argmax(1) == yb).sum().item()
        n += len(yb)
    return tot / n, hits / n


@torch.no_grad()
def evaluate(model, x, y):
    model.eval()
    logits = model(x)
    return F.cross_entropy(logits, y).item(), (logits.argmax(1) == y).float().mean().item()


model = StageNet()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
loader = DataLoader(TensorDataset(x_train, y_train), batch_size=32, shuffle=True, drop_last=True)
EPOCHS = 30

model.train()
with open("metrics.csv", "w", newline="") as fh:
    writer = csv.DictWriter(fh, fieldnames=["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
    writer.writeheader()
    best = float("inf")
    for epoch in range(EPOCHS):
        tr_loss, tr_acc = train_one_epoch(model, loader, optimizer)
        va_loss, va_acc = evaluate(model, x_val, y_val)
        best = min(best, va_loss)
        writer.writerow(dict(epoch=epoch, train_loss=round(tr_loss, 5), train_acc=round(tr_acc, 4),
                             val_loss=round(va_loss, 5), val_acc=round(va_acc, 4)))
        if epoch % 3 == 0 or epoch == EPOCHS - 1:
            print(f"epoch {epoch:2d}  train {tr_loss:.4f}/{tr_acc:.3f}  val {va_loss:.4f}/{va_acc:.3f}  (best val {best:.4f})")
