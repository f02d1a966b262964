"""Bidirectional GRU tagger for sensor event streams (sequence -> one of 4 fault codes)."""
import csv

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(23)
T, F_IN, HID, C = 40, 5, 48, 4

g = torch.Generator().manual_seed(23)
y = torch.randint(0, C, (1500,), generator=g)
x = torch.randn(1500, T, F_IN, generator=g)
x[torch.arange(1500), (y * 7 + 5), y] += 3.0
split = 1200
train_dl = DataLoader(TensorDataset(x[:split], y[:split]), batch_size=32, shuffle=True)
val_x, val_y = x[split:], y[split:]


class FaultTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(F_IN, HID, num_layers=2, batch_first=True, bidirectional=True, dropout=0.1)
        self.attn = nn.Linear(HID, 1)
        self.fc = nn.Linear(HID, C)

    def forward(self, x):
        h, _ = self.rnn(x)
        a = torch.softmax(self.attn(h), dim=1)
        return self.fc((a * h).sum(1))


model = FaultTagger()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
crit = nn.CrossEntropyLoss()
print(f"params: {sum(p.numel() for p in model.parameters())}")

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "loss", "val_loss", "val_accuracy"])
    fh.flush()
    for epoch in range(10):
        model.train()
        tot, n = 0.0, 0
        for xb, yb in train_dl:
            loss = crit(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(yb)
            n += len(yb)
        model.eval()
        with torch.no_grad():
            o = model(val_x)
            vl = crit(o, val_y).item()
            va = (o.argmax(1) == val_y).float().mean().item()
        w.writerow([epoch, round(tot / n, 5), round(vl, 5), round(va, 4)])
        print(f"epoch {epoch}  loss {tot/n:.4f}  val_loss {vl:.4f}  val_acc {va:.3f}")
