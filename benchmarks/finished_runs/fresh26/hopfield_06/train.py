"""Modern Hopfield network classifier (Ramsauer et al. style retrieval): 8 classes, each owning 3 stored
random +-1 patterns of dimension 64; inputs are copies of a pattern with 15% of the signs flipped, 20% of the entries
erased to 0 and Gaussian noise sd 0.3 added; 5% of training labels resampled. The training set arrives grouped by
class (as if read class folder by class folder). Model: linear query 64 -> 32, one
Hopfield retrieval step over 48 learned stored patterns (keys and values, learned inverse temperature beta,
softmax(beta q K^T / sqrt(d)) V), residual + LayerNorm, linear head to 8 classes. Adam, cross-entropy, validation
accuracy (chance 0.125)."""
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
NAME = "hopfield"
MET = "val_acc"
LR, WEIGHT_DECAY, BATCH, EPOCHS = 3e-3, 0.0, 64, 12
N_TRAIN, N_VAL, D, C, PROTOS = 6000, 1500, 64, 8, 3
LOG_EVERY = 30

import json as _json
import datetime as _dt


def _ecs(msg, level="info", **fields):
    rec = {"@timestamp": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
           "log.level": level, "message": msg, "ecs.version": "1.6.0",
           "service": {"name": f"{NAME}-trainer"}, "process": {"pid": 4242}}
    rec.update(fields)
    print(_json.dumps(rec))


def log_start(info):
    _ecs("training started", labels={"model": info["name"]}, train={"params": info["n_params"], "samples": info["n_train"]})


def log_step(ep, i, n, loss):
    _ecs("batch", level="debug", train={"epoch": ep, "batch": i, "batches": n, "loss": round(loss, 5)})


def log_epoch(ep, E, m):
    _ecs(f"epoch {ep} done", train={"epoch": ep, "epochs": E, "loss": round(m["tl"], 5)},
         validation={"loss": round(m["vl"], 5), "accuracy": round(m["vm"], 4)}, event={"duration": int(m["secs"] * 1e9)})


def log_end(m):
    _ecs("training finished", validation={"accuracy": round(m["vm"], 4)}, event={"duration": int(m["el"] * 1e9)})


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

gen = torch.Generator().manual_seed(1)
prototypes = torch.sign(torch.randn(C * PROTOS, D, generator=gen))
proto_label = torch.arange(C).repeat_interleave(PROTOS)


def make_split(n):
    idx = torch.randint(0, C * PROTOS, (n,), generator=gen)
    x = prototypes[idx].clone()
    flip = torch.rand(n, D, generator=gen) < 0.15
    x[flip] = -x[flip]
    x[torch.rand(n, D, generator=gen) < 0.2] = 0.0
    x = x + 0.3 * torch.randn(n, D, generator=gen)
    return x, proto_label[idx].clone()


x_train, y_train = make_split(N_TRAIN)
x_val, y_val = make_split(N_VAL)
noisy = torch.rand(N_TRAIN, generator=gen) < 0.05
y_train[noisy] = torch.randint(0, C, (int(noisy.sum()),), generator=gen)
order = torch.argsort(y_train, stable=True)
x_train, y_train = x_train[order], y_train[order]


class HopfieldClassifier(nn.Module):
    def __init__(self, d=D, hid=32, mem=48, classes=C):
        super().__init__()
        self.query = nn.Linear(d, hid)
        self.keys = nn.Parameter(torch.randn(mem, hid) * 0.3)
        self.values = nn.Parameter(torch.randn(mem, hid) * 0.3)
        self.log_beta = nn.Parameter(torch.tensor(math.log(4.0)))
        self.norm = nn.LayerNorm(hid)
        self.head = nn.Linear(hid, classes)

    def forward(self, x):
        q = self.query(x)
        att = torch.softmax(self.log_beta.exp() * (q @ self.keys.t()) / math.sqrt(q.shape[-1]), dim=-1)
        r = self.norm(q + att @ self.values)
        return self.head(r)


model = HopfieldClassifier()
opt = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
loss_fn = nn.CrossEntropyLoss()


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for k in range(0, N_TRAIN - BATCH + 1, BATCH):
        idx = perm[k:k + BATCH]
        yield x_train[idx], y_train[idx]


def step_fn(batch):
    xb, yb = batch
    loss = loss_fn(model(xb), yb)
    loss.backward()
    opt.step()
    return loss.item()


def evaluate():
    logits = model(x_val)
    return loss_fn(logits, y_val).item(), (logits.argmax(1) == y_val).float().mean().item()


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
