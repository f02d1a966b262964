"""Tiny DDPM-style denoiser on 2-D points: an MLP with a sinusoidal timestep embedding learns to predict the
noise added to samples of a synthetic 2-D dataset (8 Gaussian blobs on a ring) under a 50-step linear schedule."""
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
LR = 0.5
BATCH_SIZE = 128
EPOCHS = 10
LOG_EVERY = 10
N_TRAIN = 4000
N_VAL = 1000
T_STEPS = 50
HIDDEN = 128
RADIUS = 2.0

torch.set_num_threads(1)
torch.manual_seed(SEED)

def info(msg):
    print(msg)


def wrap_epoch(it, epoch):
    return it


def on_step(epoch, step, n_steps, m, lr, gstep):
    if gstep % LOG_EVERY == 0:
        print(f"step={gstep} epoch={epoch} " + " ".join(f"{k}={v:.5f}" for k, v in m.items()) + f" lr={lr:g}")


def on_epoch(epoch, n_steps, tr, va, elapsed, lr):
    print(f"epoch={epoch} " + " ".join(f"train_{k}={v:.5f}" for k, v in tr.items()) + " "
          + " ".join(f"val_{k}={v:.5f}" for k, v in va.items()) + f" time={elapsed:.2f}s")


def on_end(total, tr):
    print(f"status=finished total_time={total:.1f}s")


def make_ring(n, seed):
    rng = np.random.default_rng(seed)
    k = rng.integers(0, 8, size=n)
    ang = 2 * np.pi * k / 8
    centers = np.stack([np.cos(ang), np.sin(ang)], 1) * RADIUS
    pts = centers + 0.08 * RADIUS * rng.standard_normal((n, 2))
    return torch.from_numpy(pts).float()


x_tr = make_ring(N_TRAIN, SEED + 1)
x_va = make_ring(N_VAL, SEED + 2)
train_loader = DataLoader(TensorDataset(x_tr), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(x_va), batch_size=500)
info(f"train points {len(x_tr)}  val points {len(x_va)}  data std {x_tr.std().item():.3f}  T={T_STEPS}")

betas = torch.linspace(1e-3, 0.2, T_STEPS)
alphas_bar = torch.cumprod(1 - betas, 0)


def t_embed(t, dim=16):
    half = dim // 2
    freqs = torch.exp(-math.log(1000.0) * torch.arange(half) / half)
    a = t.float()[:, None] * freqs[None]
    return torch.cat([a.sin(), a.cos()], 1)


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2 + 16, HIDDEN), nn.SiLU(), nn.Linear(HIDDEN, HIDDEN), nn.SiLU(),
                                 nn.Linear(HIDDEN, HIDDEN), nn.SiLU(), nn.Linear(HIDDEN, 2))

    def forward(self, x, t):
        return self.net(torch.cat([x, t_embed(t)], 1))


model = Denoiser()
info(f"denoiser params: {sum(p.numel() for p in model.parameters()):,}")
optimizer = torch.optim.Adam(model.parameters(), lr=LR)


def forward_loss(batch, gen=None):
    x0 = batch[0]
    t = torch.randint(0, T_STEPS, (len(x0),), generator=gen)
    eps = torch.randn(x0.shape, generator=gen, dtype=x0.dtype)
    ab = alphas_bar[t][:, None]
    xt = ab.sqrt() * x0 + (1 - ab).sqrt() * eps
    pred = model(xt, t)
    loss = F.mse_loss(pred, eps)
    return loss, {"loss": loss.item()}


@torch.no_grad()
def evaluate():
    model.eval()
    g = torch.Generator().manual_seed(1234)
    tot, n = 0.0, 0
    for batch in val_loader:
        loss, _ = forward_loss(batch, g)
        tot += loss.item() * len(batch[0])
        n += len(batch[0])
    return {"loss": tot / n}


t0 = time.time()
gstep = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t_ep = time.time()
    sums, seen = {}, 0
    n_steps = len(train_loader)
    for step, batch in enumerate(wrap_epoch(train_loader, epoch), 1):
        optimizer.zero_grad()
        loss, m = forward_loss(batch)
        loss.backward()
        optimizer.step()
        gstep += 1
        bs = len(batch[0])
        for k, v in m.items():
            sums[k] = sums.get(k, 0.0) + v * bs
        seen += bs
        on_step(epoch, step, n_steps, m, optimizer.param_groups[0]["lr"], gstep)
    val = evaluate()
    on_epoch(epoch, n_steps, {k: v / seen for k, v in sums.items()}, val, time.time() - t_ep, optimizer.param_groups[0]["lr"])
on_end(time.time() - t0, {})
