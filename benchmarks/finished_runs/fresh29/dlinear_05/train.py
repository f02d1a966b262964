"""DLinear (Zeng et al. 2023) forecaster on a synthetic 5-channel load series.
4000 hourly points per channel: daily and weekly sinusoids with random phases, a slow drift and AR(1) noise
(phi 0.7), each channel at its own level (200-1000) and scale (20-120). Chronological split 70/15 (train/val),
each channel standardised with the training mean and std. Windows of 96 inputs -> 24 outputs, channel-independent.
Model: moving-average (kernel 25) decomposition into trend and seasonal parts, one Linear(96, 24) per part, summed.
Adam, MSE; metric: validation MAE in standardised units.
"""
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
NAME = "dlinear"
MET = "val_mae"
HIGHER = False
LR, BATCH, EPOCHS = 2e-5, 128, 10
C, L_TOTAL, SEQ, PRED, KERNEL = 5, 4000, 96, 24, 25
LOG_EVERY = 20

def log_start(info):
    print("[run]")
    for k, v in info.items():
        print(f"{k} = {v!r}".replace("'", '"'))
    print()


def log_step(ep, i, n, loss, lr):
    pass


def log_epoch(ep, E, m):
    print("[[epoch]]")
    print(f"index = {ep}")
    print(f"train_mse = {m['tl']:.5f}")
    print(f"val_mse = {m['vl']:.5f}")
    print(f"val_mae = {m['vm']:.5f}")
    print(f"lr = {m['lr']:.3g}")
    print()


def log_end(m):
    print("[summary]")
    print(f"best_val_mae = {m['best']:.5f}")


def run_epochs(model, opt, train_batches, evaluate, step_fn, n_train, n_val, after_epoch=None):
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"name": NAME, "n_params": n_params, "n_train": n_train, "n_val": n_val, "lr": LR, "batch": BATCH,
               "epochs": EPOCHS})
    t_start = time.time()
    best, prev_vl = None, None
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb = 0.0, 0
        for i, batch in enumerate(train_batches(), 1):
            loss = step_fn(batch)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, N_BATCHES, loss, opt.param_groups[0]["lr"])
        model.eval()
        with torch.no_grad():
            res = evaluate()
        vl, vm = res[0], res[1]
        if best is None or (vm > best if HIGHER else vm < best):
            best = vm
        m = {"tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb}
        if len(res) > 2:
            m.update(res[2])
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
        if after_epoch is not None:
            after_epoch()
    m["el"] = time.time() - t_start
    log_end(m)


gen = torch.Generator().manual_seed(11)
t = torch.arange(L_TOTAL, dtype=torch.float32)
cols = []
for c in range(C):
    level = 200 + 800 * torch.rand(1, generator=gen)
    scale = 20 + 100 * torch.rand(1, generator=gen)
    ph = 2 * math.pi * torch.rand(2, generator=gen)
    drift = (torch.rand(1, generator=gen) - 0.5) * 1.2 * t / L_TOTAL
    eps = 0.3 * torch.randn(L_TOTAL, generator=gen)
    noise = torch.zeros(L_TOTAL)
    for k in range(1, L_TOTAL):
        noise[k] = 0.7 * noise[k - 1] + eps[k]
    sig = torch.sin(2 * math.pi * t / 24 + ph[0]) + 0.5 * torch.sin(2 * math.pi * t / 168 + ph[1]) + drift
    cols.append(level + scale * (sig + noise))
data = torch.stack(cols, 1)
n_tr, n_va = int(0.7 * L_TOTAL), int(0.15 * L_TOTAL)
mean, std = data[:n_tr].mean(0), data[:n_tr].std(0)
data = (data - mean) / std


def windows(seg):
    w = seg.unfold(0, SEQ + PRED, 1).reshape(-1, SEQ + PRED)
    return w[:, :SEQ].contiguous(), w[:, SEQ:].contiguous()


x_train, y_train = windows(data[:n_tr])
x_val, y_val = windows(data[n_tr - SEQ:n_tr + n_va])
N_TRAIN, N_VAL = len(x_train), len(x_val)
N_BATCHES = N_TRAIN // BATCH


class MovingAvg(nn.Module):
    def forward(self, x):
        pad = (KERNEL - 1) // 2
        xp = torch.cat([x[:, :1].repeat(1, pad), x, x[:, -1:].repeat(1, pad)], 1)
        return F.avg_pool1d(xp.unsqueeze(1), KERNEL, stride=1).squeeze(1)


class DLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.decomp = MovingAvg()
        self.lin_seasonal = nn.Linear(SEQ, PRED)
        self.lin_trend = nn.Linear(SEQ, PRED)

    def forward(self, x):
        trend = self.decomp(x)
        seasonal = x - trend
        return self.lin_seasonal(seasonal) + self.lin_trend(trend)


model = DLinear()
opt = torch.optim.Adam(model.parameters(), lr=LR)


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for k in range(0, N_TRAIN - BATCH + 1, BATCH):
        idx = perm[k:k + BATCH]
        yield x_train[idx], y_train[idx]


def step_fn(batch):
    xb, yb = batch
    opt.zero_grad()
    loss = F.mse_loss(model(xb), yb)
    loss.backward()
    opt.step()
    return loss.item()


def evaluate():
    pred = model(x_val)
    return F.mse_loss(pred, y_val).item(), (pred - y_val).abs().mean().item()


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
