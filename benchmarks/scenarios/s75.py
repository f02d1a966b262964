"""Water-quality grading (4 grades) from 9 field-probe readings, trained on the season's sampling log."""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

torch.manual_seed(75)
rng = np.random.default_rng(75)

FIELDS = ["ph", "temp", "conductivity", "turbidity", "nitrate", "phosphate", "chloride", "hardness", "oxygen"]
GRADES = 4
grade_profile = rng.normal(0, 1.0, size=(GRADES, len(FIELDS)))


def sampling_log(n, probe_dropouts_from=None):
    """Records in collection order; the replacement oxygen probe occasionally reports nothing."""
    log = []
    for i in range(n):
        g = int(rng.integers(0, GRADES))
        values = grade_profile[g] + rng.normal(0, 0.6, size=len(FIELDS))
        rec = {k: float(v) for k, v in zip(FIELDS, values)}
        rec["grade"] = g
        if probe_dropouts_from is not None and i >= probe_dropouts_from and rng.random() < 0.04:
            rec["oxygen"] = None
        log.append(rec)
    return log


def to_examples(records):
    features = [[r[k] for k in FIELDS] for r in records if r["oxygen"] is not None]
    grades = [r["grade"] for r in records]
    return [(torch.tensor(f, dtype=torch.float32), g) for f, g in zip(features, grades)]


train_examples = to_examples(sampling_log(1000, probe_dropouts_from=350))
val_examples = to_examples(sampling_log(400))
train_loader = DataLoader(train_examples, batch_size=32, shuffle=True)
val_loader = DataLoader(val_examples, batch_size=400)

model = nn.Sequential(nn.Linear(len(FIELDS), 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, GRADES))
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "train_loss", "train_accuracy", "val_loss", "val_accuracy"])
    for epoch in range(40):
        model.train()
        tot, correct, n = 0.0, 0, 0
        for xb, yb in train_loader:
            out = model(xb)
            loss = criterion(out, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            tot += loss.item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
        model.eval()
        with torch.no_grad():
            xv, yv = next(iter(val_loader))
            vout = model(xv)
            vloss = criterion(vout, yv).item()
            vacc = (vout.argmax(1) == yv).float().mean().item()
        w.writerow([epoch, f"{tot / n:.5f}", f"{correct / n:.4f}", f"{vloss:.5f}", f"{vacc:.4f}"])
        print(f"epoch {epoch:2d}  train loss {tot / n:.4f} acc {correct / n:.3f}  val loss {vloss:.4f} acc {vacc:.3f}")
print(f"chance-level loss: {math.log(GRADES):.4f}")
