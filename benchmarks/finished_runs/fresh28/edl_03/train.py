"""Evidential deep learning classifier (Sensoy et al. 2018) on synthetic tabular data.
20 standard-normal features; the class (6 classes) is the argmax of a fixed random teacher MLP (20 -> 32 tanh -> 6)
plus Gumbel noise of scale 0.1; 5% of the training labels are resampled at random. Model: MLP 20 -> 128 -> 128 (ReLU)
-> 6 whose softplus outputs are the evidence of a Dirichlet (alpha = evidence + 1). Loss: the expected squared error under
the Dirichlet plus its variance, plus a KL term towards the uniform Dirichlet on the misleading evidence, annealed by
min(1, epoch / 10). Adam with a step decay (x0.5 every 4 epochs), validation accuracy (chance about 0.17).
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
NAME = "edl"
MET = "val_acc"
HIGHER = True
LR, BATCH, EPOCHS = 2e-3, 64, 12
N_TRAIN, N_VAL, N_FEAT, NCLS, HID = 4000, 1000, 20, 6, 128
ANNEAL_EPOCHS, LABEL_NOISE = 10, 0.05
N_BATCHES = N_TRAIN // BATCH
LOG_EVERY = 20

def log_start(info):
    print("▿ TrainerConfig")
    print(f"  - name: \"{info['name']}\"")
    print(f"  - parameters: {info['n_params']}")
    print(f"  - learningRate: {info['lr']}")
    print(f"  - batchSize: {info['batch']}")


def log_step(ep, i, n, loss):
    pass


def log_epoch(ep, E, m):
    print("▿ EpochStats")
    print(f"  - epoch: {ep}")
    print(f"  - trainLoss: {m['tl']}")
    print(f"  - valLoss: {m['vl']}")
    print(f"  - valAccuracy: {m['vm']}")
    print(f"  - learningRate: {m['lr']}")


def log_end(m):
    print("▿ Summary")
    print(f"  - bestValAccuracy: {m['best']}")

def run_epochs(model, opt, train_batches, evaluate, step_fn, n_train, n_val):
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"name": NAME, "n_params": n_params, "n_train": n_train, "n_val": n_val, "lr": LR, "batch": BATCH,
               "epochs": EPOCHS})
    t_start = time.time()
    best = None
    prev_vl = None
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb = 0.0, 0
        data_secs = 0.0
        t_fetch = time.time()
        batches = train_batches()
        for i, batch in enumerate(batches, 1):
            data_secs += time.time() - t_fetch
            loss = step_fn(batch, ep)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, N_BATCHES, loss)
            t_fetch = time.time()
        model.eval()
        with torch.no_grad():
            vl, vm = evaluate()
        if best is None or (vm > best if HIGHER else vm < best):
            best = vm
        m = {"tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb, "data_secs": data_secs}
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
        after_epoch()
    m["el"] = time.time() - t_start
    log_end(m)


gen = torch.Generator().manual_seed(5)
W1 = torch.randn(N_FEAT, 32, generator=gen) / math.sqrt(N_FEAT)
W2 = torch.randn(32, NCLS, generator=gen) * 3.0


def make_split(n):
    x = torch.randn(n, N_FEAT, generator=gen)
    u = torch.rand(n, NCLS, generator=gen).clamp(1e-6, 1 - 1e-6)
    y = (torch.tanh(x @ W1) @ W2 - 0.1 * torch.log(-torch.log(u))).argmax(1)
    return x, y


x_train, y_train = make_split(N_TRAIN)
x_val, y_val = make_split(N_VAL)
flip = torch.rand(N_TRAIN, generator=gen) < LABEL_NOISE
y_train[flip] = torch.randint(0, NCLS, (int(flip.sum()),), generator=gen)
order = torch.randperm(N_TRAIN, generator=gen)
x_train, y_train = x_train[order], y_train[torch.randperm(N_TRAIN, generator=gen)]


class EvidentialMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(N_FEAT, HID), nn.ReLU(), nn.Linear(HID, HID), nn.ReLU(),
                                 nn.Linear(HID, NCLS))

    def forward(self, x):
        evidence = F.softplus(self.net(x))
        return evidence + 1


def kl_uniform(alpha):
    S = alpha.sum(1, keepdim=True)
    lnB = torch.lgamma(S) - torch.lgamma(alpha).sum(1, keepdim=True) - math.lgamma(NCLS)
    dg = ((alpha - 1) * (torch.digamma(alpha) - torch.digamma(S))).sum(1, keepdim=True)
    return (lnB + dg).squeeze(1)


def edl_loss(alpha, y, ep):
    onehot = F.one_hot(y, NCLS).float()
    S = alpha.sum(1, keepdim=True)
    p = alpha / S
    err = (onehot - p).pow(2).sum(1)
    var = (p * (1 - p) / (S + 1)).sum(1)
    alpha_tilde = onehot + (1 - onehot) * alpha
    coef = min(1.0, ep / ANNEAL_EPOCHS)
    return (err + var + coef * kl_uniform(alpha_tilde)).mean()


model = EvidentialMLP()
opt = torch.optim.Adam(model.parameters(), lr=LR)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5)
cur_epoch = 1


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for k in range(0, N_TRAIN - BATCH + 1, BATCH):
        idx = perm[k:k + BATCH]
        yield x_train[idx], y_train[idx]


def step_fn(batch, ep):
    xb, yb = batch
    opt.zero_grad()
    loss = edl_loss(model(xb), yb, ep)
    loss.backward()
    opt.step()
    return loss.item()


def evaluate():
    alpha = model(x_val)
    acc = (alpha.argmax(1) == y_val).float().mean().item()
    return edl_loss(alpha, y_val, cur_epoch).item(), acc


def after_epoch():
    global cur_epoch
    cur_epoch += 1
    sched.step()


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
