import csv
import time

import numpy as np
import torch
import torch.nn as nn

# Wafer-map defect pattern classifier (20x20 die-level pass/fail maps)

torch.manual_seed(91)
rng = np.random.default_rng(91)

PATTERNS = ["none", "center", "edge_ring", "scratch", "donut", "loc"]
S = 20
yy, xx = np.mgrid[0:S, 0:S]
r = np.sqrt((yy - (S - 1) / 2) ** 2 + (xx - (S - 1) / 2) ** 2) / (S / 2)
on_wafer = r <= 1.0


def wafer_map(kind):
    p = np.full((S, S), 0.04 + 0.04 * rng.random())
    if kind == 1:
        p += 0.6 * (r < rng.uniform(0.25, 0.45))
    elif kind == 2:
        p += 0.6 * (r > rng.uniform(0.75, 0.88))
    elif kind == 3:
        ang = rng.uniform(0, np.pi)
        off = rng.uniform(-4, 4)
        d = np.abs((xx - S / 2) * np.sin(ang) - (yy - S / 2) * np.cos(ang) - off)
        p += 0.7 * (d < 1.0)
    elif kind == 4:
        r0 = rng.uniform(0.4, 0.6)
        p += 0.6 * (np.abs(r - r0) < 0.12)
    elif kind == 5:
        cy, cx = rng.integers(4, S - 4, 2)
        p += 0.6 * (((yy - cy) ** 2 + (xx - cx) ** 2) < rng.uniform(4, 9))
    fail = (rng.random((S, S)) < np.clip(p, 0, 1)) & on_wafer
    return np.where(on_wafer, 1.0 + fail, 0.0).astype(np.float32)   # 0 off-wafer, 1 pass, 2 fail


def make_set(n):
    labels = rng.integers(0, len(PATTERNS), n)
    maps = np.stack([wafer_map(k) for k in labels])[:, None]
    return torch.from_numpy(maps), torch.from_numpy(labels)


x_train, y_train = make_set(1600)
x_val, y_val = make_set(500)

net = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(32 * 5 * 5, 64), nn.ReLU(),
    nn.Linear(64, len(PATTERNS)),
)

epochs = 10
batch_size = 32
optimizer = torch.optim.SGD(net.parameters(), lr=0.03, momentum=0.9)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.97)
criterion = nn.CrossEntropyLoss()

csv_file = open("metrics.csv", "w", newline="")
writer = csv.writer(csv_file)
writer.writerow(["epoch", "train_loss", "val_loss", "val_acc", "lr"])
t0 = time.time()
for epoch in range(epochs):
    net.train()
    perm = torch.randperm(len(x_train))
    losses = []
    for b in range(0, len(perm), batch_size):
        idx = perm[b:b + batch_size]
        optimizer.zero_grad()
        loss = criterion(net(x_train[idx]), y_train[idx])
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())

    net.eval()
    with torch.no_grad():
        logits = net(x_val)
        val_loss = criterion(logits, y_val).item()
        val_acc = (logits.argmax(1) == y_val).float().mean().item()
    train_loss = float(np.mean(losses))
    lr = scheduler.get_last_lr()[0]
    writer.writerow([epoch, round(train_loss, 4), round(val_loss, 4), round(val_acc, 4), lr])
    print(f"Epoch {epoch + 1}/{epochs} - loss: {train_loss:.4f} - val_loss: {val_loss:.4f} "
          f"- val_acc: {val_acc:.4f} - lr: {lr:.3g} ({time.time() - t0:.1f}s)")
csv_file.close()
