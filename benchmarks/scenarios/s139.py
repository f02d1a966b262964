"""Wafer-map defect classifier (8 failure patterns) on 24x24 die-pass maps.

Only ~60 labelled maps per pattern are available, so the CNN head uses dropout; validation is
run every epoch through a small helper shared with the inspection tool.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(139)
torch.set_num_threads(1)

N_CLASSES = 8
CFG = {"epochs": 25, "batch_size": 16, "lr": 2e-3, "per_class_train": 20, "per_class_val": 60}


def wafer(kind, rng, s=24):
    yy, xx = np.mgrid[0:s, 0:s] / (s - 1) * 2 - 1
    r = np.sqrt(xx ** 2 + yy ** 2)
    ang = np.arctan2(yy, xx)
    m = np.zeros((s, s))
    if kind == 0:   m[r < 0.3 + 0.1 * rng.random()] = 1                        # center
    elif kind == 1: m[(r > 0.75) & (r < 0.95)] = 1                              # edge-ring
    elif kind == 2: a0 = rng.uniform(-np.pi, np.pi); m[(r > 0.7) & (np.abs(np.angle(np.exp(1j * (ang - a0)))) < 0.5)] = 1  # edge-loc
    elif kind == 3: c = rng.uniform(-0.5, 0.5, 2); m[np.hypot(xx - c[0], yy - c[1]) < 0.25] = 1   # loc
    elif kind == 4: t = rng.uniform(-0.6, 0.6); m[np.abs(yy - t - 0.7 * xx) < 0.07] = 1           # scratch
    elif kind == 5: m[rng.random((s, s)) < 0.25] = 1                           # random
    elif kind == 6: m[r < 0.95] = 1; m[rng.random((s, s)) < 0.1] = 0           # near-full
    elif kind == 7: m[(r > 0.4) & (r < 0.55)] = 1                              # donut
    m = np.where(r > 1.0, 0, m)
    noise = rng.random((s, s)) < 0.2
    m = np.abs(m - noise)
    return m.astype(np.float32)


def make(per_class, rng):
    xs, ys = [], []
    for c in range(N_CLASSES):
        for _ in range(per_class):
            xs.append(wafer(c, rng)); ys.append(c)
    return torch.tensor(np.stack(xs))[:, None], torch.tensor(ys)


class WaferNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.5), nn.Linear(64 * 36, 256), nn.ReLU(),
                                  nn.Dropout(0.5), nn.Linear(256, N_CLASSES))

    def forward(self, x):
        return self.head(self.conv(x))


def validate(model, x, y):
    model.eval()
    with torch.no_grad():
        out = model(x)
    return F.cross_entropy(out, y).item(), (out.argmax(1) == y).float().mean().item()


def main():
    rng = np.random.default_rng(139)
    x_tr, y_tr = make(CFG["per_class_train"], rng)
    x_va, y_va = make(CFG["per_class_val"], rng)
    # flip/rotate augmentation is applied offline by the fab tool; none here
    model = WaferNet()
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    step = 0
    model.train()
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            perm = torch.randperm(len(x_tr))
            tl, tc, n = 0.0, 0, 0
            for i in range(0, len(perm), CFG["batch_size"]):
                idx = perm[i:i + CFG["batch_size"]]
                out = model(x_tr[idx])
                loss = F.cross_entropy(out, y_tr[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                tl += loss.item() * len(idx); tc += (out.argmax(1) == y_tr[idx]).sum().item(); n += len(idx)
            vl, va = validate(model, x_va, y_va)
            w.writerow([step, epoch, f"{tl / n:.5f}", f"{tc / n:.4f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"epoch {epoch:2d}  train {tl / n:.4f} acc {tc / n:.3f}  val {vl:.4f} acc {va:.3f}")


if __name__ == "__main__":
    main()
