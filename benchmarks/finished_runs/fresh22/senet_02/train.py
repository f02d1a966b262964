"""Squeeze-and-excitation CNN classifying synthetic 3-channel 12x12 textures: each image is Gaussian pixel noise
(sd 1.3) with one sinusoidal grating (random frequency and phase) added to ONE of the three channels, either horizontal
or vertical; the class (6 classes) is which channel carries the grating x its orientation, so the network has to learn
which channel matters (what the SE blocks re-weight). 5% of the training labels are resampled at random. Three 3x3
convolutions (16, 32, 32 channels, the last two with stride 2), BatchNorm, ReLU, an SE block (reduction 4) after each,
global average pooling and a linear head. Cross-entropy, SGD with momentum 0.9. Metric: validation accuracy."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
torch.set_num_threads(1)
NAME = "senet"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL = 0.02, 32, 8, 2000, 800
MET = "acc"
HIGHER = True

_n = [0]


def log_start(info):
    print("TAP version 13")
    print(f"# training {info['name']} ({info['n_params']} parameters), batch {info['batch']}, lr {info['lr']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    _n[0] += 1
    print(f"ok {_n[0]} - epoch {ep}/{E} train_loss={m['tl']:.4f} val_loss={m['vl']:.4f} val_{MET}={m['vm']:.4f}")
    print("  ---")
    print(f"  duration_ms: {m['sec'] * 1000:.0f}")
    print(f"  lr: {m['lr']:.6f}")
    print("  ...")


def log_end(m):
    print(f"1..{_n[0]}")
    print(f"# done in {m['el']:.1f}s")


gen = torch.Generator().manual_seed(8)


def make(n, noisy):
    y = torch.randint(0, 6, (n,), generator=gen)
    ch, ori = y // 2, y % 2
    f = 0.6 + 0.7 * torch.rand(n, generator=gen)
    ph = 6.283 * torch.rand(n, generator=gen)
    r = torch.arange(12).float()
    rows = torch.sin(f[:, None, None] * r[None, :, None] + ph[:, None, None]).expand(n, 12, 12)
    cols = torch.sin(f[:, None, None] * r[None, None, :] + ph[:, None, None]).expand(n, 12, 12)
    pat = torch.where(ori[:, None, None] == 0, rows, cols)
    x = 1.3 * torch.randn(n, 3, 12, 12, generator=gen)
    x[torch.arange(n), ch] += pat
    if noisy:
        flip = torch.rand(n, generator=gen) < 0.05
        y = torch.where(flip, torch.randint(0, 6, (n,), generator=gen), y)
    return x, y


x_train, y_train = make(N_TRAIN, True)
x_val, y_val = make(N_VAL, False)


class SE(nn.Module):
    def __init__(self, c, r=4):
        super().__init__()
        self.fc1 = nn.Linear(c, c // r)
        self.fc2 = nn.Linear(c // r, c)

    def forward(self, x):
        s = x.mean((2, 3))
        s = torch.sigmoid(self.fc2(F.relu(self.fc1(s))))
        return x * s[:, :, None, None]


class SENet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.b1, self.s1 = nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), SE(16)
        self.c2, self.b2, self.s2 = nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), SE(32)
        self.c3, self.b3, self.s3 = nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), SE(32)
        self.head = nn.Linear(32, 6)

    def forward(self, x):
        x = self.s1(F.relu(self.b1(self.c1(x))))
        x = self.s2(F.relu(self.b2(self.c2(x))))
        x = self.s3(F.relu(self.b3(self.c3(x))))
        return self.head(x.mean((2, 3)))


model = SENet()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9, weight_decay=5e-4)
steps = math.ceil(N_TRAIN / BATCH)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "batch": BATCH, "lr": LR, "n_train": N_TRAIN, "n_val": N_VAL})
t0 = time.time()
gstep = 0
for ep in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, correct = 0.0, 0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        xb, yb = x_train[idx], y_train[idx]
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        correct += (logits.argmax(1) == yb).sum().item()
        log_step(ep, i, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        lv = model(x_val)
        vl = F.cross_entropy(lv, y_val).item()
        va = (lv.argmax(1) == y_val).float().mean().item()
    log_epoch(ep, EPOCHS, {"tl": tot / N_TRAIN, "tm": correct / N_TRAIN, "vl": vl, "vm": va,
                           "lr": optimizer.param_groups[0]["lr"], "el": time.time() - t0, "sec": time.time() - te,
                           "gstep": gstep})
log_end({"el": time.time() - t0, "gstep": gstep, "ep": EPOCHS, "vm": va, "vl": vl, "n_train": N_TRAIN})
