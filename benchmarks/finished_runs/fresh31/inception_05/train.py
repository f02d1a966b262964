"""Inception-style CNN (GoogLeNet-like mixed blocks) classifying synthetic 16x16 grayscale textures.
Each of 5 classes is a sinusoidal grating at a class-specific orientation (0, 36, 72, 108, 144 degrees) with a random
frequency and phase, buried in Gaussian noise (sd 2.2); pixels are stored as 0-255 values and standardised with the
training-set mean and std. Network: conv stem, two inception blocks (parallel 1x1, 1x1->3x3, 1x1->5x5 and
maxpool->1x1 branches concatenated), global average pooling, dropout, linear classifier. Metric: validation accuracy.
"""
import math
import random
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
import json
torch.manual_seed(0)
torch.set_num_threads(1)
random.seed(0)
with open("config.json") as f:
    CFG = json.load(f)
N_TRAIN, N_VAL = CFG["n_train"], CFG["n_val"]
LR, BATCH, EPOCHS = CFG["lr"], CFG["batchsize"], CFG["epoch"]
DROPOUT = CFG["dropout"]
NAME = "inception"
MET = "val_acc"
HIGHER = True


def make_data(n, g):
    y = torch.randint(0, 5, (n,), generator=g)
    theta = y.float() * math.pi / 5
    freq = 0.6 + 0.6 * torch.rand(n, generator=g)
    phase = 2 * math.pi * torch.rand(n, generator=g)
    coords = torch.arange(16).float() - 7.5
    yy, xx = torch.meshgrid(coords, coords, indexing="ij")
    u = xx[None] * torch.cos(theta)[:, None, None] + yy[None] * torch.sin(theta)[:, None, None]
    img = torch.sin(freq[:, None, None] * u + phase[:, None, None])
    img = img + 2.2 * torch.randn(n, 16, 16, generator=g)
    img = ((img + 9.0) / 18.0 * 255.0).clamp(0, 255).round()
    return img[:, None], y


g = torch.Generator().manual_seed(1)
Xtr, Ytr = make_data(N_TRAIN, g)
Xva, Yva = make_data(N_VAL, g)
MEAN, STD = Xtr.mean(), Xtr.std()
Xtr = (Xtr - MEAN) / STD
perm = torch.randperm(N_TRAIN)
Xtr = Xtr[perm]
Ytr = Ytr[torch.randperm(N_TRAIN)]
Xva = (Xva - MEAN) / STD
N_BATCHES = math.ceil(N_TRAIN / BATCH)
LOG_EVERY = 100


class ConvReLU(nn.Sequential):
    def __init__(self, cin, cout, k):
        super().__init__(nn.Conv2d(cin, cout, k, padding=k // 2), nn.ReLU())


class InceptionBlock(nn.Module):
    def __init__(self, cin, c1, c3r, c3, c5r, c5, cp):
        super().__init__()
        self.b1 = ConvReLU(cin, c1, 1)
        self.b3 = nn.Sequential(ConvReLU(cin, c3r, 1), ConvReLU(c3r, c3, 3))
        self.b5 = nn.Sequential(ConvReLU(cin, c5r, 1), ConvReLU(c5r, c5, 5))
        self.bp = nn.Sequential(nn.MaxPool2d(3, stride=1, padding=1), ConvReLU(cin, cp, 1))

    def forward(self, x):
        return torch.cat([self.b1(x), self.b3(x), self.b5(x), self.bp(x)], dim=1)


class MiniInception(nn.Module):
    def __init__(self, n_classes=5, dropout=DROPOUT):
        super().__init__()
        self.stem = ConvReLU(1, 16, 3)
        self.inc1 = InceptionBlock(16, 8, 8, 12, 4, 6, 6)
        self.inc2 = InceptionBlock(32, 16, 16, 16, 4, 8, 8)
        self.drop = nn.Dropout(dropout)
        self.fc = nn.Linear(48, n_classes)

    def forward(self, x):
        x = F.max_pool2d(self.stem(x), 2)
        x = F.max_pool2d(self.inc1(x), 2)
        x = self.inc2(x)
        x = x.mean(dim=(2, 3))
        return self.fc(self.drop(x))


model = MiniInception()
opt = torch.optim.Adam(model.parameters(), lr=LR)
crit = nn.CrossEntropyLoss()


def log_start(info):
    print("epoch       main/loss   validation/main/loss  main/accuracy  validation/main/accuracy  elapsed_time")


def log_step(ep, i, n, loss, lr, extra):
    pass


def log_epoch(ep, E, m):
    print(f"{ep:<11} {m['tl']:<11.6g} {m['vl']:<21.6g} {m['train_acc']:<14.6g} {m['vm']:<25.6g} {m['el']:<12.6g}")


def log_end(m):
    pass


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
        idx = perm[i:i + BATCH]
        yield Xtr[idx], Ytr[idx]


def step_fn(batch):
    x, y = batch
    opt.zero_grad()
    logits = model(x)
    loss = crit(logits, y)
    loss.backward()
    opt.step()
    acc = (logits.argmax(1) == y).float().mean().item()
    return loss.item(), {"acc": acc}


def evaluate():
    logits = model(Xva)
    vl = crit(logits, Yva).item()
    acc = (logits.argmax(1) == Yva).float().mean().item()
    tr_logits = model(Xtr[:500])
    tr_acc = (tr_logits.argmax(1) == Ytr[:500]).float().mean().item()
    return vl, acc, {"train_acc": tr_acc}


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
