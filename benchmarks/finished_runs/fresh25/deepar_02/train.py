"""DeepAR-style probabilistic forecaster: 40 synthetic retail-like series (hourly, 320 steps) with a per-series level
between 40 and 600 units, a daily (24-step) seasonal profile, a slow trend and heavy-tailed noise. An autoregressive
GRU (hidden 40) reads the previous value (divided by the series' mean scale, as in DeepAR), a sin/cos hour-of-day
encoding and a series embedding, and emits the mean and standard deviation of a Gaussian for the next value; training
minimises the Gaussian negative log-likelihood over 72-step windows (teacher forcing). Validation: the last 48 steps of
every series, one-step-ahead; metrics are the Gaussian NLL and ND (sum |z - mu| / sum |z|, lower is better)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "deepar"
MET = "val_nd"
LR, BATCH, EPOCHS, WIN = 0.01, 32, 12, 72
N_SERIES, T_LEN, HOLD = 40, 320, 48

_OBS = [0]


def log_start(info):
    print("1          The SAS System                       08:00 Saturday, December 5, 2026")
    print(f"NOTE: PROC NEURAL model={info['name'].upper()} parameters={info['n_params']}.")
    print(f"NOTE: There were {info['n_train']} observations read from the data set WORK.TRAIN.")
    print(f"NOTE: There were {info['n_val']} observations read from the data set WORK.VALID.")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    print(f"NOTE: Iteration {ep:>3}  Objective={m['tl']:>12.6f}  Valid_Objective={m['vl']:>12.6f}  Valid_{MET.split('_')[-1].upper()}={m['vm']:>9.5f}")


def log_end(m):
    print(f"NOTE: Optimization stopped after {EPOCHS} iterations. Final Valid_{MET.split('_')[-1].upper()}={m['vm']:.5f}.")
    print(f"NOTE: PROCEDURE NEURAL used (Total process time):")
    print(f"      real time           {m['el']:.2f} seconds")

gen = torch.Generator().manual_seed(11)
t = torch.arange(T_LEN, dtype=torch.float32)
level = 40 + 560 * torch.rand(N_SERIES, 1, generator=gen)
phase = 2 * math.pi * torch.rand(N_SERIES, 1, generator=gen)
amp = 0.2 + 0.3 * torch.rand(N_SERIES, 1, generator=gen)
trend = 0.0015 * torch.randn(N_SERIES, 1, generator=gen)
season = 1 + amp * torch.sin(2 * math.pi * t / 24 + phase) + 0.1 * torch.sin(2 * math.pi * t / 6 + 2 * phase)
noise = 0.06 * torch.randn(N_SERIES, T_LEN, generator=gen)
spikes = (torch.rand(N_SERIES, T_LEN, generator=gen) < 0.01).float() * (0.5 + 1.5 * torch.rand(N_SERIES, T_LEN, generator=gen))
Z = level * (season * (1 + trend * t) + noise + spikes)
Z = Z.clamp(min=1.0)
hour = torch.stack([torch.sin(2 * math.pi * t / 24), torch.cos(2 * math.pi * t / 24)], -1)
scale = Z[:, :T_LEN - HOLD].mean(1, keepdim=True)


class DeepAR(nn.Module):
    def __init__(self, hidden=40):
        super().__init__()
        self.emb = nn.Embedding(N_SERIES, 4)
        self.rnn = nn.GRU(1 + 2 + 4, hidden, batch_first=True)
        self.mu = nn.Linear(hidden, 1)
        self.sig = nn.Linear(hidden, 1)

    def forward(self, prev, feats, sid):
        e = self.emb(sid).unsqueeze(1).expand(-1, prev.shape[1], -1)
        h, _ = self.rnn(torch.cat([prev.unsqueeze(-1), feats, e], -1))
        mu = self.mu(h).squeeze(-1)
        sigma = F.softplus(self.sig(h)).squeeze(-1) + 1e-3
        return mu, sigma


def gauss_nll(z, mu, sigma):
    return (torch.log(sigma) + 0.5 * ((z - mu) / sigma) ** 2 + 0.5 * math.log(2 * math.pi)).mean()


def make_batch(sids, starts):
    idx = starts.unsqueeze(1) + torch.arange(WIN + 1).unsqueeze(0)
    zs = torch.gather(Z[sids], 1, idx) / scale[sids]
    feats = hour[idx[:, 1:]]
    return zs[:, :-1], feats, zs[:, 1:]


model = DeepAR()
opt = torch.optim.Adam(model.parameters(), lr=LR)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "n_train": N_SERIES * (T_LEN - HOLD), "n_val": N_SERIES * HOLD})
steps = 20
t0 = time.time()
gstep = 0
for ep in range(1, EPOCHS + 1):
    model.train()
    tot = 0.0
    for i in range(steps):
        sids = torch.randint(0, N_SERIES, (BATCH,), generator=gen)
        starts = torch.randint(0, T_LEN - HOLD - WIN - 1, (BATCH,), generator=gen)
        prev, feats, tgt = make_batch(sids, starts)
        opt.zero_grad()
        mu, sigma = model(prev, feats, sids)
        loss = gauss_nll(tgt, mu, sigma)
        loss.backward()
        opt.step()
        tot += loss.item()
        gstep += 1
        log_step(ep, i + 1, steps, loss.item(), LR, gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        sids = torch.arange(N_SERIES)
        prev = Z[:, :-1] / scale
        mu, sigma = model(prev, hour[1:].unsqueeze(0).expand(N_SERIES, -1, -1), sids)
        tz = Z[:, 1:] / scale
        vl = gauss_nll(tz[:, -HOLD:], mu[:, -HOLD:], sigma[:, -HOLD:]).item()
        pred = mu[:, -HOLD:] * scale
        nd = ((pred - Z[:, -HOLD:]).abs().sum() / Z[:, -HOLD:].abs().sum()).item()
    log_epoch(ep, EPOCHS, {"tl": tot / steps, "vl": vl, "vm": nd, "lr": LR, "el": time.time() - t0})
log_end({"vm": nd, "vl": vl, "el": time.time() - t0})
