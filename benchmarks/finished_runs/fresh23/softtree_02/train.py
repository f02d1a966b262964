"""Soft decision tree classifier (Frosst & Hinton style, depth 5: 31 sigmoid routing nodes, 32 leaves each holding
learned class logits; the prediction is the path-probability-weighted mixture of leaf distributions). Synthetic tabular
data: 10 features on very different scales (sensor units: two around 1000 with sd 200, one in [0, 0.01], the rest
roughly unit), 4 classes from axis-aligned and oblique threshold rules on the standardized features, 5% of training
labels resampled. Inputs standardized with training-set mean/std. NLL of the mixture, Adam. Metric: validation
accuracy (higher is better; chance 0.25)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "softtree"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, DEPTH = 0.01, 16, 12, 3000, 1000, 5
MET = "acc"
HIGHER = True

def log_start(info):
    print(f"┌ Info: model built")
    print(f"│   model = {info['name']}")
    print(f"│   nparams = {info['n_params']}")
    print(f"│   batchsize = {info['batch']}")
    print(f"└ @ Main ~/softtree/train.jl:61")


def log_step(ep, i, n, loss, lr, gstep, el):
    if (i + 1) % 47 == 0:
        print(f"[ Info: iter {gstep}: loss = {loss:.5f}")


def log_epoch(ep, E, m):
    print(f"┌ Info: epoch {ep}")
    print(f"│   train_loss = {m['tl']:.5f}")
    print(f"│   train_acc = {m['tm']:.4f}")
    print(f"│   val_loss = {m['vl']:.5f}")
    print(f"│   val_acc = {m['vm']:.4f}")
    print(f"└ @ Main ~/softtree/train.jl:88")


def log_end(m):
    print(f"[ Info: done: {m['ep']} epochs, {m['el']:.2f} s")


D, NC = 10, 4

gen = torch.Generator().manual_seed(5)
scale = torch.tensor([200.0, 200.0, 0.003, 1, 1, 1, 1, 1, 1, 1])
offset = torch.tensor([1000.0, 950.0, 0.005, 0, 0, 0, 0, 0, 0, 0])
w_obl = torch.randn(D, generator=gen)


def make(n, noise):
    z = torch.randn(n, D, generator=gen)
    a = (z[:, 0] > 0.3).long()
    b = ((z[:, 2] + 0.8 * z[:, 3] - 0.5 * z[:, 1]) > 0).long()
    c = ((z @ w_obl) / w_obl.norm() > 0.9).long()
    y = torch.where(c == 1, 3, torch.where(a == 1, 2, b))
    if noise > 0:
        flip = torch.rand(n, generator=gen) < noise
        y = torch.where(flip, torch.randint(0, NC, (n,), generator=gen), y)
    return z * scale + offset, y


x_train, y_train = make(N_TRAIN, 0.05)
x_val, y_val = make(N_VAL, 0.0)
mu, sd = x_train.mean(0), x_train.std(0)
x_train = (x_train - mu) / sd
x_val = (x_val - mu) / sd


class SoftTree(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.depth = depth
        self.inner = nn.Linear(D, 2 ** depth - 1)
        self.leaves = nn.Parameter(torch.randn(2 ** depth, NC) * 0.1)
        self.beta = nn.Parameter(torch.ones(()))

    def forward(self, x):
        p_right = torch.sigmoid(self.beta * self.inner(x))
        mu = torch.ones(x.shape[0], 1)
        start = 0
        for d in range(self.depth):
            n = 2 ** d
            pr = p_right[:, start:start + n]
            mu = torch.stack([mu * (1 - pr), mu * pr], 2).reshape(x.shape[0], 2 * n)
            start += n
        probs = mu @ F.softmax(self.leaves, 1)
        return probs


model = SoftTree(DEPTH)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
steps = math.ceil(N_TRAIN / BATCH)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "batch": BATCH, "lr": LR, "n_train": N_TRAIN, "n_val": N_VAL})
t0 = time.time()
gstep = 0
for ep in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, correct = 0.0, 0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        probs = model(x_train[idx])
        loss = F.nll_loss(torch.log(probs + 1e-8), y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        correct += (probs.argmax(1) == y_train[idx]).sum().item()
        log_step(ep, i, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    lr_now = optimizer.param_groups[0]["lr"]
    model.eval()
    with torch.no_grad():
        probs = model(x_val)
        vl = F.nll_loss(torch.log(probs + 1e-8), y_val).item()
        va = (probs.argmax(1) == y_val).float().mean().item()
    log_epoch(ep, EPOCHS, {"tl": tot / N_TRAIN, "tm": correct / N_TRAIN, "vl": vl, "vm": va,
                           "lr": lr_now, "el": time.time() - t0, "sec": time.time() - te, "gstep": gstep})
log_end({"el": time.time() - t0, "gstep": gstep, "ep": EPOCHS, "vm": va, "vl": vl, "n_train": N_TRAIN})
