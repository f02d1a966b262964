"""Shape classification (circle / square / triangle / cross) with on-the-fly augmentation."""
import json
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

SIZE = 16
torch.manual_seed(25)


def draw(shape, rng):
    yy, xx = np.mgrid[0:SIZE, 0:SIZE] - SIZE / 2 + rng.normal(0, 1.5, 2)[:, None, None]
    r = rng.uniform(3.5, 6)
    if shape == 0:
        img = (xx ** 2 + yy ** 2 < r ** 2)
    elif shape == 1:
        img = (np.abs(xx) < r * 0.8) & (np.abs(yy) < r * 0.8)
    elif shape == 2:
        img = (yy > -r) & (yy < r) & (np.abs(xx) < (r - yy) / 2)
    else:
        img = (np.abs(xx) < 1.5) | (np.abs(yy) < 1.5)
        img &= (np.abs(xx) < r) & (np.abs(yy) < r)
    return img.astype(np.float32)


def augment(img, rng):
    """Random rotation (nearest neighbour), elastic jitter and a small blur."""
    theta = rng.uniform(-np.pi / 6, np.pi / 6)
    c, s = np.cos(theta), np.sin(theta)
    out = np.zeros_like(img)
    centre = (SIZE - 1) / 2
    jitter = rng.normal(0, 0.3, size=(SIZE, SIZE, 2))
    for i in range(SIZE):
        for j in range(SIZE):
            y0 = c * (i - centre) - s * (j - centre) + centre + jitter[i, j, 0]
            x0 = s * (i - centre) + c * (j - centre) + centre + jitter[i, j, 1]
            yi, xi = int(round(y0)), int(round(x0))
            if 0 <= yi < SIZE and 0 <= xi < SIZE:
                out[i, j] = img[yi, xi]
    k = np.array([0.25, 0.5, 0.25])
    out = np.apply_along_axis(lambda r: np.convolve(r, k, mode="same"), 1, out)
    out = np.apply_along_axis(lambda r: np.convolve(r, k, mode="same"), 0, out)
    return out + rng.normal(0, 0.1, out.shape)


class ShapeDataset(Dataset):
    def __init__(self, n, seed):
        self.rng = np.random.default_rng(seed)
        self.labels = self.rng.integers(0, 4, n)
        self.base = [draw(lab, self.rng) for lab in self.labels]

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        img = augment(self.base[idx], self.rng)
        return torch.from_numpy(img.astype(np.float32))[None], int(self.labels[idx])


model = nn.Sequential(
    nn.Conv2d(1, 8, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
    nn.Flatten(), nn.Linear(16 * 4, 4),
)
loader = DataLoader(ShapeDataset(1024, 0), batch_size=16, shuffle=True, num_workers=0)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
loss_fn = nn.CrossEntropyLoss()

with open("metrics.jsonl", "w") as log:
    step, tick = 0, time.time()
    for epoch in range(2):
        for images, labels in loader:
            logits = model(images)
            loss = loss_fn(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            now = time.time()
            rec = {"step": step, "epoch": epoch, "loss": round(loss.item(), 5),
                   "accuracy": round((logits.argmax(1) == labels).float().mean().item(), 4),
                   "step_time": round(now - tick, 5)}
            tick = now
            log.write(json.dumps(rec) + "\n")
            if step % 10 == 0:
                print(rec)
            step += 1
