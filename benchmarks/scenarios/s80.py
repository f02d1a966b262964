"""Subscription plan recommender: predicts which of 3 plans a customer upgrades to.

Customers have two categorical fields (region, acquisition channel) and six usage numbers.
Micro-batches of 16 with gradient accumulation, to mimic an effective batch of 64.
"""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(80)
rng = np.random.default_rng(80)

N_REGIONS, N_CHANNELS, N_USAGE, N_PLANS = 12, 6, 6, 3
region_pref = rng.normal(0, 1.0, size=(N_REGIONS, N_PLANS))
channel_pref = rng.normal(0, 1.0, size=(N_CHANNELS, N_PLANS))
usage_w = rng.normal(0, 1.0, size=(N_USAGE, N_PLANS))


class Customers(Dataset):
    def __init__(self, n):
        self.region = rng.integers(0, N_REGIONS, size=n)
        self.channel = rng.integers(0, N_CHANNELS, size=n)
        self.usage = rng.normal(0, 1, size=(n, N_USAGE)).astype(np.float32)
        score = region_pref[self.region] + channel_pref[self.channel] + self.usage @ usage_w
        self.plan = (score + rng.gumbel(size=score.shape) * 0.5).argmax(1)

    def __len__(self):
        return len(self.plan)

    def __getitem__(self, i):
        return int(self.region[i]), int(self.channel[i]), torch.from_numpy(self.usage[i]), int(self.plan[i])


class PlanModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.region_emb = nn.Embedding(N_REGIONS, 8)
        self.channel_emb = nn.Embedding(N_CHANNELS, 4)
        self.mlp = nn.Sequential(nn.Linear(8 + 4 + N_USAGE, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, N_PLANS))

    def forward(self, region, channel, usage):
        return self.mlp(torch.cat([self.region_emb(region), self.channel_emb(channel), usage], dim=1))


train_set, val_set = Customers(4000), Customers(1000)
train_loader = DataLoader(train_set, batch_size=16, shuffle=True)
val_loader = DataLoader(val_set, batch_size=500)

model = PlanModel()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)

ACCUM_STEPS = 4
PRINT_EVERY = 50
EPOCHS = 3


def validate():
    model.eval()
    total, correct = 0.0, 0
    with torch.no_grad():
        for r, c, u, y in val_loader:
            out = model(r, c, u)
            total += criterion(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
    model.train()
    return total / len(val_set), correct / len(val_set)


f = open("metrics.csv", "w", newline="")
writer = csv.writer(f)
writer.writerow(["step", "epoch", "train_loss", "val_loss", "val_accuracy"])

step = 0
optimizer.zero_grad()
for epoch in range(EPOCHS):
    for region, channel, usage, plan in train_loader:
        loss = criterion(model(region, channel, usage), plan)
        (loss / ACCUM_STEPS).backward()

        if (step + 1) % ACCUM_STEPS == 0:
            optimizer.step()
        if step % PRINT_EVERY == 0:
            print(f"epoch {epoch} step {step:4d}  loss {loss.item():.4f}")
            optimizer.zero_grad()

        if step % 10 == 0:
            row = [step, epoch, f"{loss.item():.5f}", "", ""]
            if step % 20 == 0:
                vl, va = validate()
                row[3:] = [f"{vl:.5f}", f"{va:.4f}"]
            writer.writerow(row)
        step += 1

vl, va = validate()
print(f"final val loss {vl:.4f}  val acc {va:.3f}  (chance {math.log(N_PLANS):.4f})")
f.close()
