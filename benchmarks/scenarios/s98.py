"""Surface-defect type from blob-analysis measurements (vision system export): MLP, 4 defect classes."""
import csv

import numpy as np
import torch
from torch import nn

torch.manual_seed(98)
rng = np.random.default_rng(98)

CLASSES = ["scratch", "particle", "stain", "crack"]
COLUMNS = ["area_px", "perimeter_px", "mean_intensity", "intensity_std",
           "eccentricity", "solidity", "aspect_ratio", "orientation_rad"]


def blob_table(n):
    y = rng.integers(0, 4, n)
    rows = []
    for c in y:
        if c == 0:      # scratch: long, thin, bright-ish
            area, ecc, sol, ar, inten = rng.uniform(150, 1500), rng.uniform(0.9, 0.99), rng.uniform(0.55, 0.85), rng.uniform(3, 9), rng.uniform(140, 220)
        elif c == 1:    # particle: small, round, dark
            area, ecc, sol, ar, inten = rng.uniform(40, 400), rng.uniform(0.1, 0.6), rng.uniform(0.85, 1.0), rng.uniform(1, 1.8), rng.uniform(30, 120)
        elif c == 2:    # stain: big, round-ish, low contrast
            area, ecc, sol, ar, inten = rng.uniform(800, 6000), rng.uniform(0.2, 0.75), rng.uniform(0.7, 0.95), rng.uniform(1, 2.5), rng.uniform(100, 170)
        else:           # crack: medium, elongated, branching (low solidity), dark
            area, ecc, sol, ar, inten = rng.uniform(200, 2500), rng.uniform(0.8, 0.97), rng.uniform(0.3, 0.65), rng.uniform(2, 6), rng.uniform(20, 110)
        perim = np.sqrt(area) * (3.5 + 1.2 * ar) * rng.uniform(0.9, 1.1) / sol
        std = rng.uniform(5, 60)
        orient = rng.uniform(-np.pi / 2, np.pi / 2)
        rows.append([area, perim, inten, std, ecc, sol, ar, orient])
    x = np.array(rows)
    # measurement noise from the vision system
    x[:, 4:7] += rng.normal(0, [0.06, 0.06, 0.5], size=(n, 3))
    x[:, 2] += rng.normal(0, 15, n)
    return x.astype(np.float32), y


X_train, y_train = blob_table(2400)
X_val, y_val = blob_table(600)
Xt, yt = torch.from_numpy(X_train), torch.from_numpy(y_train)
Xv, yv = torch.from_numpy(X_val), torch.from_numpy(y_val)
print("column ranges:", {c: (round(float(X_train[:, i].min()), 2), round(float(X_train[:, i].max()), 2))
                         for i, c in enumerate(COLUMNS)})

model = nn.Sequential(nn.Linear(len(COLUMNS), 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
batch_size = 32

log = open("metrics.csv", "w", newline="")
writer = csv.writer(log)
writer.writerow(["epoch", "step", "train_loss", "train_acc", "val_loss", "val_acc"])
step = 0
for epoch in range(6):
    order = torch.randperm(len(Xt))
    for i in range(0, len(order), batch_size):
        idx = order[i:i + batch_size]
        logits = model(Xt[idx])
        loss = loss_fn(logits, yt[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            with torch.no_grad():
                vlog = model(Xv)
                vloss = loss_fn(vlog, yv).item()
                vacc = (vlog.argmax(1) == yv).float().mean().item()
            tacc = (logits.argmax(1) == yt[idx]).float().mean().item()
            writer.writerow([epoch, step, f"{loss.item():.5f}", f"{tacc:.4f}", f"{vloss:.5f}", f"{vacc:.4f}"])
        step += 1
    print(f"epoch {epoch}: loss {loss.item():.4f}  val_loss {vloss:.4f}  val_acc {vacc:.3f}")
log.close()
