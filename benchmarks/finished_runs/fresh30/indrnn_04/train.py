"""IndRNN (Li et al. 2018) on the adding problem.
Each sequence has 40 steps of two inputs: a value drawn uniformly from [0, 1) and a marker that is 1 at exactly two
steps (one in each half) and 0 elsewhere; the target is the sum of the two marked values. Model: two IndRNN layers
(64 units, h_t = relu(W x_t + u * h_{t-1} + b) with an element-wise recurrent weight u) and a linear read-out of the
last hidden state; MSE loss; Adam with gradient-norm clipping. Predicting the mean (1.0) gives an MSE of about 0.167.
Metric: validation MSE (lower is better).
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
NAME = "indrnn"
MET = "val_mse"
HIGHER = False
LR, BATCH, EPOCHS = 2e-3, 64, 12
CLIP = 1.0
T, HID = 40, 64
N_TRAIN, N_VAL = 2048, 512

_STD = ("ep", "tl", "vl", "vm", "lr", "secs", "el", "best", "prev_vl", "nb")


def _extras(m):
    return {k: v for k, v in m.items() if k not in _STD}


def log_start(info):
    print("TRAINING MODEL")
    print(f"Read {info['n_train']} lines.")
    print(f"vector size: {info['n_params']}")


def log_step(ep, i, n, loss, lr, extra):
    pass


def log_epoch(ep, E, m):
    print(f"{time.strftime('%m/%d/%y - %I:%M.%S%p', time.gmtime(1796547600 + m['el']))}, iter: {ep:03d}, cost: {m['tl']:.6f}, val cost: {m['vl']:.6f}")


def log_end(m):
    pass


def run_epochs(model, opt, train_batches, evaluate, step_fn, n_train, n_val, after_epoch=None, clip=None):
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"name": NAME, "n_params": n_params, "n_train": n_train, "n_val": n_val, "lr": LR, "batch": BATCH,
               "epochs": EPOCHS, "n_batches": N_BATCHES})
    t_start = time.time()
    best, prev_vl = None, None
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb = 0.0, 0
        for i, batch in enumerate(train_batches(), 1):
            loss, extra = step_fn(batch)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, N_BATCHES, loss, opt.param_groups[0]["lr"], extra)
        model.eval()
        with torch.no_grad():
            res = evaluate()
        vl, vm = res[0], res[1]
        if best is None or (vm > best if HIGHER else vm < best):
            best = vm
        m = {"ep": ep, "tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb}
        if len(res) > 2:
            m.update(res[2])
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
        if after_epoch is not None:
            after_epoch()
    m["el"] = time.time() - t_start
    log_end(m)


N_BATCHES = N_TRAIN // BATCH
LOG_EVERY = max(1, N_BATCHES // 4)
U_LOW, U_HIGH = 0.0, 0.3
VALUE_SCALE = 1.0


def make_split(n, g):
    vals = torch.rand(n, T, generator=g)
    mark = torch.zeros(n, T)
    a = torch.randint(0, T // 2, (n,), generator=g)
    b = torch.randint(T // 2, T, (n,), generator=g)
    mark[torch.arange(n), a] = 1.0
    mark[torch.arange(n), b] = 1.0
    y = (vals * mark).sum(1, keepdim=True)
    x = torch.stack([vals * VALUE_SCALE, mark], -1)
    return x, y


g = torch.Generator().manual_seed(0)
Xtr, Ytr = make_split(N_TRAIN, g)
Xva, Yva = make_split(N_VAL, g)


class IndRNNLayer(nn.Module):
    def __init__(self, nin, nh):
        super().__init__()
        self.inp = nn.Linear(nin, nh)
        self.u = nn.Parameter(torch.empty(nh).uniform_(U_LOW, U_HIGH))

    def forward(self, x):
        xs = self.inp(x)
        h = torch.zeros(x.shape[0], self.u.shape[0])
        outs = []
        for t in range(x.shape[1]):
            h = F.relu(xs[:, t] + self.u * h)
            outs.append(h)
        return torch.stack(outs, 1)


class IndRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = IndRNNLayer(2, HID)
        self.l2 = IndRNNLayer(HID, HID)
        self.out = nn.Linear(HID, 1)

    def forward(self, x):
        return self.out(self.l2(self.l1(x))[:, -1])


model = IndRNN()
opt = torch.optim.Adam(model.parameters(), lr=LR)


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for b in range(N_BATCHES):
        idx = perm[b * BATCH:(b + 1) * BATCH]
        yield Xtr[idx], Ytr[idx]


def step_fn(batch):
    x, y = batch
    loss = F.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
    opt.step()
    return loss.item(), {"grad_norm": gn.item()}


def evaluate():
    p = model(Xva)
    mse = F.mse_loss(p, Yva).item()
    acc = ((p - Yva).abs() < 0.04).float().mean().item()
    return mse, mse, {"within_0.04": acc}


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
