"""Train a classifier on records stored as text lines (one JSON object per record)."""
import csv
import json
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(5)
rng = np.random.default_rng(5)

N_FEATURES = 16


def build_records(n):
    w = rng.normal(size=(N_FEATURES, 3))
    lines = []
    for _ in range(n):
        x = rng.normal(size=N_FEATURES)
        label = int(np.argmax(x @ w + rng.normal(scale=0.3, size=3)))
        lines.append(json.dumps({"features": x.round(5).tolist(), "label": label}))
    return lines


class RecordDataset(Dataset):
    def __init__(self, lines, read_latency=0.0006):
        self.lines = lines
        self.read_latency = read_latency  # records live on a network share

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        time.sleep(self.read_latency)
        rec = json.loads(self.lines[i])
        x = torch.tensor(rec["features"], dtype=torch.float32)
        return x, rec["label"]


train_ds = RecordDataset(build_records(1600))
loader = DataLoader(train_ds, batch_size=32, shuffle=True, num_workers=0)

model = nn.Sequential(nn.Linear(N_FEATURES, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
loss_fn = nn.CrossEntropyLoss()

f = open("metrics.csv", "w", newline="")
out = csv.writer(f)
out.writerow(["step", "epoch", "loss", "accuracy", "step_time"])
step = 0
t_prev = time.perf_counter()
for epoch in range(2):
    for xb, yb in loader:
        logits = model(xb)
        loss = loss_fn(logits, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        now = time.perf_counter()
        step_time, t_prev = now - t_prev, now
        acc = (logits.argmax(1) == yb).float().mean().item()
        out.writerow([step, epoch, round(loss.item(), 5), round(acc, 4), round(step_time, 5)])
        if step % 10 == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.4f} acc {acc:.3f} ({step_time * 1000:.1f} ms/step)")
        step += 1
f.close()
print("total steps:", step)
