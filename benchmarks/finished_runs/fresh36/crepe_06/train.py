# CREPE-style monophonic pitch estimator: raw waveform frames -> conv stack -> pitch-bin classifier.
# Synthetic harmonic tones (random timbre, vibrato-free) with additive noise, 8 kHz, 256-sample frames.
# Metrics: RPA (raw pitch accuracy, |error| <= 50 cents) and RCA (octave errors forgiven).
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import tqdm

SEED = 7
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)

SR, FRAME = 8000, 256
MIDI_LO, N_BINS = 45, 40          # semitone bins: A2 .. C6
N_TRAIN, N_VAL = 1500, 800
BATCH_SIZE = 64
EPOCHS = 25
LR = 0.02
MOMENTUM = 0.9
CLIP = 5.0


def synth(n, rng):
    t = np.arange(FRAME) / SR
    x = np.zeros((n, FRAME), dtype=np.float32)
    y = rng.randint(0, N_BINS, size=n)
    for i in range(n):
        midi = MIDI_LO + y[i] + rng.uniform(-0.3, 0.3)
        f0 = 440.0 * 2 ** ((midi - 69) / 12)
        amps = rng.dirichlet(np.ones(5)) * rng.uniform(0.3, 1.0)
        ph = rng.uniform(0, 2 * np.pi, size=5)
        sig = sum(amps[k] * np.sin(2 * np.pi * f0 * (k + 1) * t + ph[k]) for k in range(5) if f0 * (k + 1) < SR / 2)
        x[i] = sig + rng.normal(0, 0.05, size=FRAME)
    return x, y


rng = np.random.RandomState(SEED)
x_tr, y_tr = synth(N_TRAIN, rng)
# reference f0 comes from a pitch tracker run on the stems: it makes octave errors
oct_err = rng.rand(N_TRAIN) < 0.35
y_tr[oct_err] = np.where(y_tr[oct_err] < N_BINS - 12, y_tr[oct_err] + 12, y_tr[oct_err] - 12)
x_va, y_va = synth(N_VAL, rng)
x_tr, x_va = torch.tensor(x_tr), torch.tensor(x_va)
y_tr, y_va = torch.tensor(y_tr), torch.tensor(y_va)


def normalize(x):
    # CREPE normalises every frame to zero mean and unit variance
    return (x - x.mean(1, keepdim=True)) / x.std(1, keepdim=True).clamp_min(1e-8)


class ConvBlock(nn.Module):
    def __init__(self, cin, cout, k, stride=1):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, k, stride=stride, padding=k // 2)
        self.bn = nn.BatchNorm1d(cout)
        self.pool = nn.MaxPool1d(2)
        self.drop = nn.Dropout(0.25)

    def forward(self, x):
        return self.drop(self.pool(self.bn(F.relu(self.conv(x)))))


class Crepe(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(
            ConvBlock(1, 32, 64, stride=2), ConvBlock(32, 16, 15), ConvBlock(16, 16, 15), ConvBlock(16, 32, 15))
        self.head = nn.Linear(32 * 8, N_BINS)

    def forward(self, x):
        h = self.blocks(normalize(x).unsqueeze(1))
        return self.head(h.flatten(1))


model = Crepe()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
criterion = nn.CrossEntropyLoss()


def pitch_metrics(logits, y):
    pred = logits.argmax(1)
    rpa = (pred == y).float().mean().item()
    rca = ((pred - y) % 12 == 0).float().mean().item()
    return rpa, rca


def validate():
    model.eval()
    with torch.no_grad():
        logits = torch.cat([model(x_va[i:i + 400]) for i in range(0, N_VAL, 400)])
        loss = criterion(logits, y_va).item()
    rpa, rca = pitch_metrics(logits, y_va)
    model.train()
    return loss, rpa, rca


steps = math.ceil(N_TRAIN / BATCH_SIZE)
t_start = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, correct, seen = 0.0, 0, 0
    for step in range(1, steps + 1):
        idx = perm[(step - 1) * BATCH_SIZE: step * BATCH_SIZE]
        xb, yb = x_tr[idx], y_tr[idx]
        optimizer.zero_grad()
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        optimizer.step()
        tot += loss.item() * len(idx)
        correct += (logits.argmax(1) == yb).sum().item()
        seen += len(idx)
        if step % 20 == 0:
            print(f"[{epoch}/{EPOCHS}][{step}/{steps}] loss: {loss.item():.4f} grad_norm: {gnorm:.3f} lr: {optimizer.param_groups[0]['lr']:.4g}")
    tr_loss, tr_rpa = tot / seen, correct / seen
    val_loss, val_rpa, val_rca = validate()
    print(f"[{epoch}/{EPOCHS}] train loss: {tr_loss:.4f} RPA: {100 * tr_rpa:.2f}% | val loss: {val_loss:.4f} RPA: {100 * val_rpa:.2f}% RCA: {100 * val_rca:.2f}%")
print(f"finished {EPOCHS} epochs in {time.time() - t_start:.1f}s")
