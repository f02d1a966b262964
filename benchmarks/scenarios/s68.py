"""Wafer-map defect classes (ring / scratch / cluster) from a CSV-style dump of 32x32 grey-level pixel strings."""
import json
import random
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(68)
random.seed(68)
rng = np.random.default_rng(68)
SIDE, CLASSES = 32, ["ring", "scratch", "cluster"]


def render(kind):
    yy, xx = np.mgrid[0:SIDE, 0:SIDE] - (SIDE - 1) / 2
    if kind == 0:
        r = np.hypot(xx, yy)
        img = np.exp(-((r - rng.uniform(8, 13)) ** 2) / 4)
    elif kind == 1:
        a = rng.uniform(0, np.pi)
        img = np.exp(-((np.cos(a) * xx + np.sin(a) * yy - rng.uniform(-6, 6)) ** 2) / 2)
    else:
        cx, cy = rng.uniform(-8, 8, 2)
        img = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / 12)
    img = np.clip(img + rng.normal(0, 0.25, img.shape), 0, 1)
    return " ".join(map(str, (img * 255).astype(int).ravel()))


class WaferMaps(Dataset):
    """Rows as exported by the inspection tool: {"pixels": "12 0 255 ...", "label": "ring"}."""

    def __init__(self, n, train=True):
        self.rows = []
        for _ in range(n):
            k = int(rng.integers(0, len(CLASSES)))
            self.rows.append({"pixels": render(k), "label": CLASSES[k]})
        self.train = train

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        row = self.rows[idx]
        values = [int(v) / 255.0 for v in row["pixels"].split(" ")]
        flip = self.train and random.random() < 0.5
        gain = random.uniform(0.9, 1.1) if self.train else 1.0
        grid = []
        for i in range(SIDE):
            line = []
            for j in range(SIDE):
                # 3x3 smoothing to suppress the sensor speckle
                acc, cnt = 0.0, 0
                for di in (-1, 0, 1):
                    for dj in (-1, 0, 1):
                        y, x = i + di, j + dj
                        if 0 <= y < SIDE and 0 <= x < SIDE:
                            acc += values[y * SIDE + (SIDE - 1 - x if flip else x)]
                            cnt += 1
                line.append((gain * acc / cnt - 0.5) / 0.5)
            grid.append(line)
        return {"image": torch.tensor([grid], dtype=torch.float32), "label": CLASSES.index(row["label"])}


train_loader = DataLoader(WaferMaps(640), batch_size=32, shuffle=True, num_workers=0)
val_loader = DataLoader(WaferMaps(160, train=False), batch_size=80, num_workers=0)

model = nn.Sequential(
    nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
    nn.Flatten(), nn.Linear(16, len(CLASSES)),
)
optimizer = torch.optim.RMSprop(model.parameters(), lr=2e-3)
criterion = nn.CrossEntropyLoss()

start = time.perf_counter()
seen = 0
with open("metrics.jsonl", "w") as log:
    step = 0
    for epoch in range(2):
        model.train()
        for batch in train_loader:
            out = model(batch["image"])
            loss = criterion(out, batch["label"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            seen += len(batch["label"])
            elapsed = time.perf_counter() - start
            log.write(json.dumps({"step": step, "epoch": epoch, "loss": round(loss.item(), 5),
                                  "elapsed_s": round(elapsed, 3), "images_per_s": round(seen / elapsed, 1)}) + "\n")
            step += 1
        model.eval()
        correct = 0
        with torch.no_grad():
            for batch in val_loader:
                correct += (model(batch["image"]).argmax(1) == batch["label"]).sum().item()
        val_acc = correct / len(val_loader.dataset)
        log.write(json.dumps({"step": step, "epoch": epoch, "val_accuracy": round(val_acc, 4)}) + "\n")
        print(f"epoch {epoch}  loss {loss.item():.4f}  val acc {val_acc:.3f}  {seen / elapsed:.0f} images/s")
