"""Deep SVDD one-class anomaly detection (Ruff et al. 2018) on synthetic 32-D sensor records.
Normal records lie near a 4-D nonlinear manifold (x = tanh(A z) + 0.1 noise, z ~ N(0, I)); anomalies in the
validation set come from a different mixing matrix (half of them) or from the normal manifold with 3 of the 32
channels stuck at a random value (the other half). A bias-free MLP encoder (32-64-32-8, LeakyReLU) maps records to
an 8-D space; the centre c is the mean embedding of the training data before training; the loss is the mean squared
distance to c. Training uses normal records only. Metric: validation ROC AUC of the distance score (normal vs
anomalous; 0.5 is chance).
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
N_TRAIN, N_VAL = 3000, 1000
LR, BATCH, EPOCHS = 0.001, 128, 20
NAME = "deepsvdd"
MET = "val_auc"
HIGHER = True

g = torch.Generator().manual_seed(3)
A_NORM = torch.randn(32, 4, generator=g) / 1.2
A_ANOM = torch.randn(32, 4, generator=g) / 1.2


def normal_records(n):
    z = torch.randn(n, 4, generator=g)
    return torch.tanh(z @ A_NORM.T) + 0.1 * torch.randn(n, 32, generator=g)


def anomalous_records(n):
    h = n // 2
    z = torch.randn(h, 4, generator=g)
    a = torch.tanh(z @ A_ANOM.T) + 0.1 * torch.randn(h, 32, generator=g)
    b = normal_records(n - h)
    for r in range(n - h):
        ch = torch.randperm(32, generator=g)[:3]
        b[r, ch] = 2 * torch.rand(3, generator=g) - 1
    return torch.cat([a, b])


Xtr = normal_records(N_TRAIN)
Xva = torch.cat([normal_records(N_VAL // 2), anomalous_records(N_VAL - N_VAL // 2)])
Yva = torch.cat([torch.zeros(N_VAL // 2), torch.ones(N_VAL - N_VAL // 2)])
N_BATCHES = math.ceil(N_TRAIN / BATCH)
LOG_EVERY = 100


class Encoder(nn.Module):
    def __init__(self, rep_dim=8):
        super().__init__()
        self.fc1 = nn.Linear(32, 64, bias=False)
        self.fc2 = nn.Linear(64, 32, bias=False)
        self.fc3 = nn.Linear(32, rep_dim, bias=False)

    def forward(self, x):
        x = F.leaky_relu(self.fc1(x), 0.1)
        x = F.leaky_relu(self.fc2(x), 0.1)
        return self.fc3(x)


def roc_auc(score, label):
    order = torch.argsort(score)
    ranks = torch.empty_like(score)
    ranks[order] = torch.arange(1, len(score) + 1, dtype=score.dtype)
    pos = label == 1
    n_pos, n_neg = pos.sum().item(), (~pos).sum().item()
    return ((ranks[pos].sum().item() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


model = Encoder()
with torch.no_grad():
    c = model(Xtr).mean(dim=0)
    c[(c.abs() < 0.1) & (c < 0)] = -0.1
    c[(c.abs() < 0.1) & (c >= 0)] = 0.1
opt = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=1e-6)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.05)


import json


def log_start(info):
    print(json.dumps({"event": "start", "model": "deep_svdd", "n_train": info["n_train"], "n_val": info["n_val"],
                      "lr": info["lr"], "batch_size": info["batch"], "epochs": info["epochs"]}))


def log_step(ep, i, n, loss, lr, extra):
    pass


def log_epoch(ep, E, m):
    print(json.dumps({"epoch": ep, "train_loss": round(m["tl"], 8), "val_loss": round(m["vl"], 8),
                      "val_auc": round(m["vm"], 4), "lr": m["lr"], "time_s": round(m["secs"], 3)}))


def log_end(m):
    print(json.dumps({"event": "end", "best_val_auc": round(m["best"], 4), "total_time_s": round(m["el"], 2)}))


def run_epochs(model, opt, train_batches, evaluate, step_fn, n_train, n_val, sched=None):
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"name": NAME, "n_params": n_params, "n_train": n_train, "n_val": n_val, "lr": LR, "batch": BATCH,
               "epochs": EPOCHS, "n_batches": N_BATCHES, "metric": MET})
    t_start = time.time()
    best = None
    step = 0
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb = 0.0, 0
        for i, batch in enumerate(train_batches(), 1):
            loss, extra = step_fn(batch)
            step += 1
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                extra = dict(extra or {})
                extra["step"] = step
                extra["elapsed"] = time.time() - t_start
                log_step(ep, i, N_BATCHES, loss, opt.param_groups[0]["lr"], extra)
        if sched is not None:
            sched.step()
        model.eval()
        with torch.no_grad():
            res = evaluate()
        vl, vm = res[0], res[1]
        if best is None or (vm > best if HIGHER else vm < best):
            best = vm
        m = {"ep": ep, "tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "nb": nb, "step": step}
        if len(res) > 2:
            m.update(res[2])
        log_epoch(ep, EPOCHS, m)
    log_end(m)


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for i in range(0, N_TRAIN, BATCH):
        yield Xtr[perm[i:i + BATCH]]


def step_fn(x):
    opt.zero_grad()
    dist = ((model(x) - c) ** 2).sum(dim=1)
    loss = dist.mean()
    loss.backward()
    opt.step()
    return loss.item(), {}


def evaluate():
    dist = ((model(Xva) - c) ** 2).sum(dim=1)
    vl = dist[Yva == 0].mean().item()
    auc = roc_auc(dist, Yva)
    return vl, auc, {"anom_dist": dist[Yva == 1].mean().item()}


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL, sched=sched)
