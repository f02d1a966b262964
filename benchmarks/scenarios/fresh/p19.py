"""GRU sequence classifier with linear warmup + cosine decay (standard recipe)."""
import csv
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(19)
T, F_IN, C = 30, 6, 5


def make(n, g):
    y = torch.randint(0, C, (n,), generator=g)
    t = torch.linspace(0, 1, T)
    freq = (1 + y).float().unsqueeze(1) * 2.0
    base = torch.sin(2 * math.pi * freq * t.unsqueeze(0))
    x = torch.randn(n, T, F_IN, generator=g) * 0.8
    x[:, :, 0] += base
    x[:, :, 1] += base.roll(3, dims=1) * 0.5
    return x, y


g = torch.Generator().manual_seed(19)
xtr, ytr = make(3000, g)
xva, yva = make(500, g)


class GRUClf(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(F_IN, 64, batch_first=True)
        self.fc = nn.Linear(64, C)

    def forward(self, x):
        _, h = self.gru(x)
        return self.fc(h[-1])


model = GRUClf()
dl = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=True)
EPOCHS = 6
total = EPOCHS * len(dl)
WARMUP = 80
PEAK = 3e-2
opt = torch.optim.Adam(model.parameters(), lr=PEAK)
sched = torch.optim.lr_scheduler.LambdaLR(
    opt, lambda s: (s + 1) / WARMUP if s < WARMUP else 0.5 * (1 + math.cos(math.pi * (s - WARMUP) / (total - WARMUP))))
crit = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "lr", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(EPOCHS):
        for xb, yb in dl:
            model.train()
            loss = crit(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            if step % 5 == 0:
                model.eval()
                with torch.no_grad():
                    o = model(xva)
                    vl = crit(o, yva).item()
                    va = (o.argmax(1) == yva).float().mean().item()
                w.writerow([step, epoch, round(loss.item(), 5), f"{sched.get_last_lr()[0]:.3e}", round(vl, 5), round(va, 4)])
                if step % 20 == 0:
                    print(f"step {step:4d}  lr {sched.get_last_lr()[0]:.2e}  loss {loss.item():.4f}  val_loss {vl:.4f}  val_acc {va:.3f}")
