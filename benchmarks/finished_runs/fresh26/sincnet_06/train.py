"""SincNet-style raw-waveform classifier on synthetic 0.1 s clips (400 samples at 4 kHz) of 5 "instrument"
classes, each a harmonic tone whose fundamental lies in a class band (150-220, 260-340, 380-480, 520-640, 700-850 Hz)
(amplitude 0.5-1) with 2 overtones of amplitude 0-0.5, a random amplitude envelope, random gain 0.2-1.0 and white noise sd 0.3; 5% of
training labels resampled. Model: a learnable sinc band-pass filterbank (24 filters of length 51 with learned low
cut-off and bandwidth, Hamming window), abs + max-pool 4 + BatchNorm + LeakyReLU, two Conv1d(k=5) + BatchNorm + LeakyReLU
+ max-pool blocks (32 channels), global average pooling, dropout, linear head to 5 classes. Adam, gradient norm clipped
at 5, cross-entropy, validation accuracy (chance 0.20)."""
import math
import random
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
random.seed(0)
NAME = "sincnet"
MET = "val_acc"
LR, WEIGHT_DECAY, BATCH, EPOCHS = 3e-3, 0.0, 32, 8
N_TRAIN, N_VAL, SR, LEN, CLASSES, DROPOUT = 2400, 600, 4000, 400, 5, 0.2
CLIP_NORM = 5.0
LOG_EVERY = 20

def log_start(info):
    print(f"Model {info['name']}: {info['n_params']} parameters, {info['n_train']} exempels da trenament")


def log_step(ep, i, n, loss):
    print(f"  epoca {ep}, pass {i}/{n}: perdita {loss:.4f}")


def log_epoch(ep, E, m):
    print(f"Epoca {ep}/{E}: perdita da trenament {m['tl']:.4f}, perdita da validaziun {m['vl']:.4f}, exactadad da validaziun {m['vm']:.4f}")


def log_end(m):
    print(f"Terminà en {m['el']:.1f} s. Exactadad finala: {m['vm']:.4f}")


def run_epochs(model, opt, train_batches, evaluate, step_fn, n_train, n_val):
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"name": NAME, "n_params": n_params, "n_train": n_train, "n_val": n_val})
    t_start = time.time()
    best = None
    prev_vl = None
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb = 0.0, 0
        batches = list(train_batches())
        for i, batch in enumerate(batches, 1):
            loss = step_fn(batch)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, len(batches), loss)
        model.eval()
        with torch.no_grad():
            vl, vm = evaluate()
        if best is None or (vm > best if MET == "val_acc" else vm < best):
            best = vm
        m = {"tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb}
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
    m["el"] = time.time() - t_start
    log_end(m)

gen = torch.Generator().manual_seed(4)
BANDS = [(150, 220), (260, 340), (380, 480), (520, 640), (700, 850)]


def make_split(n):
    y = torch.randint(0, CLASSES, (n,), generator=gen)
    lo = torch.tensor([BANDS[c][0] for c in y.tolist()], dtype=torch.float)
    hi = torch.tensor([BANDS[c][1] for c in y.tolist()], dtype=torch.float)
    f0 = lo + (hi - lo) * torch.rand(n, generator=gen)
    t = torch.arange(LEN, dtype=torch.float) / SR
    x = torch.zeros(n, LEN)
    for h in range(1, 4):
        amp = 0.5 + 0.5 * torch.rand(n, 1, generator=gen) if h == 1 else 0.5 * torch.rand(n, 1, generator=gen)
        phase = 2 * math.pi * torch.rand(n, 1, generator=gen)
        x += amp * torch.sin(2 * math.pi * h * f0.unsqueeze(1) * t + phase)
    env = torch.sigmoid((t - 0.02 * torch.rand(n, 1, generator=gen)) * 200) * torch.exp(-t * 8 * torch.rand(n, 1, generator=gen))
    x = x * env * (0.2 + 0.8 * torch.rand(n, 1, generator=gen))
    x = x + 0.3 * torch.randn(n, LEN, generator=gen)
    return x.unsqueeze(1), y


x_train, y_train = make_split(N_TRAIN)
x_val, y_val = make_split(N_VAL)
noisy = torch.rand(N_TRAIN, generator=gen) < 0.05
y_train[noisy] = torch.randint(0, CLASSES, (int(noisy.sum()),), generator=gen)
order = torch.argsort(y_train, stable=True)
x_train, y_train = x_train[order], y_train[order]


class SincConv(nn.Module):
    def __init__(self, n_filters=24, k=51, sr=SR):
        super().__init__()
        low = torch.linspace(30, sr / 2 - 200, n_filters)
        self.low_hz = nn.Parameter(low / sr)
        self.band_hz = nn.Parameter(torch.full((n_filters,), 100.0 / sr))
        n = torch.arange(-(k // 2), k // 2 + 1, dtype=torch.float)
        self.register_buffer("n", n)
        self.register_buffer("window", torch.hamming_window(k, periodic=False))

    def forward(self, x):
        f1 = self.low_hz.abs() + 1e-3
        f2 = (f1 + self.band_hz.abs()).clamp(max=0.5)
        arg1 = 2 * math.pi * f1.unsqueeze(1) * self.n
        arg2 = 2 * math.pi * f2.unsqueeze(1) * self.n
        safe_n = torch.where(self.n == 0, torch.ones_like(self.n), self.n)
        band = (torch.sin(arg2) - torch.sin(arg1)) / (math.pi * safe_n)
        centre = 2 * (f2 - f1).unsqueeze(1).expand_as(band)
        band = torch.where(self.n == 0, centre, band)
        filters = (band * self.window).unsqueeze(1)
        return F.conv1d(x, filters, padding=self.n.numel() // 2)


class SincNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.sinc = SincConv()
        self.bn0 = nn.BatchNorm1d(24)
        self.features = nn.Sequential(
            nn.Conv1d(24, 32, 5, padding=2), nn.BatchNorm1d(32), nn.LeakyReLU(0.2), nn.MaxPool1d(3),
            nn.Conv1d(32, 32, 5, padding=2), nn.BatchNorm1d(32), nn.LeakyReLU(0.2), nn.MaxPool1d(3),
        )
        self.drop = nn.Dropout(DROPOUT)
        self.head = nn.Linear(32, CLASSES)

    def forward(self, x):
        h = F.leaky_relu(self.bn0(F.max_pool1d(self.sinc(x).abs(), 4)), 0.2)
        h = self.features(h).mean(-1)
        return self.head(self.drop(h))


model = SincNet()
opt = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
loss_fn = nn.CrossEntropyLoss()


def train_batches():
    perm = torch.arange(N_TRAIN)
    for k in range(0, N_TRAIN - BATCH + 1, BATCH):
        idx = perm[k:k + BATCH]
        yield x_train[idx], y_train[idx]


def step_fn(batch):
    xb, yb = batch
    opt.zero_grad()
    loss = loss_fn(model(xb), yb)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP_NORM)
    opt.step()
    return loss.item()


def evaluate():
    logits = model(x_val)
    return loss_fn(logits, y_val).item(), (logits.argmax(1) == y_val).float().mean().item()


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
