"""Power-quality event classifier: 1-D CNN over 2-cycle voltage waveform snippets (normal, sag, swell, harmonics, transient)."""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 93
torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)

N_SAMPLES = 128                      # 64 samples per mains cycle
EVENTS = ["normal", "sag", "swell", "harmonics", "transient"]
t = np.arange(N_SAMPLES) / 64.0


def waveform(kind):
    phase = rng.uniform(0, 2 * np.pi)
    base = np.sin(2 * np.pi * t + phase)
    env = np.ones(N_SAMPLES)
    if kind in (1, 2):
        start = rng.integers(10, 70)
        length = rng.integers(30, 58)
        depth = rng.uniform(0.25, 0.6) * (-1 if kind == 1 else 0.7)
        env[start:start + length] += depth
        wave = env * base
    elif kind == 3:
        wave = base + rng.uniform(0.1, 0.25) * np.sin(2 * np.pi * 3 * t + rng.uniform(0, 6.3)) \
            + rng.uniform(0.05, 0.2) * np.sin(2 * np.pi * 5 * t + rng.uniform(0, 6.3))
    elif kind == 4:
        c = rng.integers(8, N_SAMPLES - 8)
        wave = base + rng.uniform(0.6, 1.2) * np.exp(-np.abs(np.arange(N_SAMPLES) - c) / 2.5) \
            * np.sin(2 * np.pi * 0.3 * (np.arange(N_SAMPLES) - c))
    else:
        wave = base
    wave = wave * rng.uniform(0.95, 1.05) + rng.normal(0, 0.06, N_SAMPLES)
    # field recorders occasionally pick up switching spikes unrelated to the event
    if rng.random() < 0.08:
        wave[rng.integers(0, N_SAMPLES)] += rng.choice([-1, 1]) * rng.uniform(0.8, 1.6)
    return wave


def build_split(n, label_noise):
    y = rng.integers(0, len(EVENTS), n)
    x = np.stack([waveform(k) for k in y]).astype(np.float32)
    # a few events were hand-labelled by the utility and are simply wrong
    flip = rng.random(n) < label_noise
    y = np.where(flip, rng.integers(0, len(EVENTS), n), y)
    return torch.from_numpy(x).unsqueeze(1), torch.from_numpy(y)


x_train, y_train = build_split(2000, label_noise=0.05)
x_val, y_val = build_split(400, label_noise=0.0)
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=32, shuffle=True)


class PQNet(nn.Module):
    def __init__(self, n_classes=len(EVENTS)):
        super().__init__()
        self.conv1 = nn.Conv1d(1, 16, 7, padding=3)
        self.conv2 = nn.Conv1d(16, 32, 5, padding=2)
        self.conv3 = nn.Conv1d(32, 48, 5, padding=2)
        self.bn1 = nn.BatchNorm1d(16)
        self.bn2 = nn.BatchNorm1d(32)
        self.fc = nn.Linear(48 * 2, n_classes)

    def forward(self, x):
        x = F.max_pool1d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool1d(F.relu(self.bn2(self.conv2(x))), 2)
        x = F.relu(self.conv3(x))
        x = torch.cat([x.mean(-1), x.amax(-1)], 1)
        return self.fc(x)


@torch.no_grad()
def evaluate(model):
    model.eval()
    logits = model(x_val)
    model.train()
    return F.cross_entropy(logits, y_val).item(), (logits.argmax(1) == y_val).float().mean().item()


EPOCHS = 8
WARMUP = 40
total_steps = EPOCHS * len(train_loader)

model = PQNet()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.05, total_iters=WARMUP)
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=total_steps - WARMUP, eta_min=0.0)
schedule = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, cosine], milestones=[WARMUP])
# safety net on top of the cosine: halve the lr if validation stalls
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=1,
                                                     threshold=0.1, cooldown=10)

step = 0
with open("metrics.csv", "w", newline="") as fh:
    log = csv.writer(fh)
    log.writerow(["step", "epoch", "loss", "grad_norm", "lr", "val_loss", "val_acc"])
    for epoch in range(EPOCHS):
        model.train()
        losses = []
        for xb, yb in train_loader:
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0).item()
            optimizer.step()
            schedule.step()
            losses.append(loss.item())
            if step % 20 == 0:
                vl, va = evaluate(model)
                log.writerow([step, epoch, f"{loss.item():.5f}", f"{gn:.4f}",
                              f"{optimizer.param_groups[0]['lr']:.3e}", f"{vl:.5f}", f"{va:.4f}"])
            step += 1
        vl, va = evaluate(model)
        plateau.step(vl)
        print(f"epoch {epoch}  train loss {np.mean(losses):.4f} (batch max {np.max(losses):.3f})  "
              f"val loss {vl:.4f}  val acc {va:.3f}  lr {optimizer.param_groups[0]['lr']:.2e}")
print(f"chance loss ln(5) = {math.log(5):.4f}")
