"""Bird-call species ID from short log-mel spectrogram clips (1 x 24 mel bins x 32 frames)."""
import csv
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(112)
rng = np.random.default_rng(112)

SPECIES = ["warbler", "thrush", "wren", "owl", "woodpecker"]
N_MEL, N_FRAMES = 24, 32


def render_call(sp):
    spec = rng.gamma(2.0, 0.08, (N_MEL, N_FRAMES))           # background noise floor
    t0 = int(rng.integers(0, 10))
    dur = int(rng.integers(14, 22))
    f0 = rng.uniform(6, 16)
    for k in range(dur):
        t = t0 + k
        if t >= N_FRAMES:
            break
        if sp == 0:      # rising sweep
            f = f0 - 4 + 0.5 * k
        elif sp == 1:    # falling sweep
            f = f0 + 4 - 0.5 * k
        elif sp == 2:    # fast warble
            f = f0 + 3 * np.sin(k * 1.3)
        elif sp == 3:    # low steady hoot with a harmonic
            f = 4 + 0.3 * np.sin(k * 0.2)
            spec[int(np.clip(2 * f, 0, N_MEL - 1)), t] += 0.6
        else:            # broadband drumming every other frame
            if k % 2 == 0:
                spec[:, t] += 0.5
            continue
        fi = int(np.clip(round(f), 0, N_MEL - 1))
        spec[max(fi - 1, 0):fi + 2, t] += rng.uniform(0.8, 1.2)
    return np.log1p(spec)


def make_set(n):
    y = rng.integers(0, len(SPECIES), n)
    x = np.stack([render_call(s) for s in y])[:, None].astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y)


class CallNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
        )
        self.classifier = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, n_classes))

    def forward(self, x):
        fmap = self.features(x)                                   # (B, 32, 12, 16)
        # robust temporal pooling: 90th percentile over time and frequency,
        # so a single click or bin of wind noise doesn't dominate
        fmap = fmap.detach().cpu().numpy()
        pooled = torch.from_numpy(np.percentile(fmap, 90, axis=(2, 3))).float()
        return self.classifier(pooled)


x_train, y_train = make_set(2000)
x_val, y_val = make_set(500)
print(f"train {tuple(x_train.shape)}  val {tuple(x_val.shape)}")

model = CallNet(len(SPECIES))
optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
BATCH, EPOCHS = 32, 5

f = open("metrics.csv", "w", newline="")
log = csv.writer(f)
log.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc", "sec"])
for epoch in range(EPOCHS):
    t_start = time.time()
    model.train()
    order = torch.randperm(len(x_train))
    tot_loss, tot_hit = 0.0, 0
    for i in range(0, len(order), BATCH):
        idx = order[i:i + BATCH]
        xb, yb = x_train[idx], y_train[idx]
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot_loss += loss.item() * len(idx)
        tot_hit += (out.argmax(1) == yb).sum().item()
    model.eval()
    with torch.no_grad():
        out = model(x_val)
        val_loss = F.cross_entropy(out, y_val).item()
        val_acc = (out.argmax(1) == y_val).float().mean().item()
    tr_loss, tr_acc = tot_loss / len(x_train), tot_hit / len(x_train)
    sec = time.time() - t_start
    log.writerow([epoch, round(tr_loss, 4), round(tr_acc, 4), round(val_loss, 4), round(val_acc, 4),
                  round(sec, 2)])
    f.flush()
    print(f"[{epoch}] loss {tr_loss:.4f} acc {tr_acc:.3f} | val_loss {val_loss:.4f} val_acc {val_acc:.3f}"
          f" ({sec:.1f}s)")
f.close()
