import math
import time
import datetime
import logging
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
SEED = 4133
torch.manual_seed(SEED)
np.random.seed(SEED)

# ---------------- config ----------------
VOCAB = 24
SEQ = 32
D = 48
LAYERS = 2
N_TRAIN_SEQ, N_VAL_SEQ = 1500, 200
BATCH = 32
STEPS = 360
EVAL_EVERY = 40
LR = 3e-3
WD = 0.01
CLIP = 1.0

# ---------------- data: a small stochastic grammar ----------------
rng = np.random.RandomState(SEED)
TRANS = rng.dirichlet(np.full(VOCAB, 0.15), size=VOCAB)
COPY_LAG = 5

def sample_seqs(n):
    out = np.zeros((n, SEQ + 1), dtype=np.int64)
    for i in range(n):
        out[i, 0] = rng.randint(VOCAB)
        for t in range(1, SEQ + 1):
            if t >= COPY_LAG and rng.rand() < 0.35:
                out[i, t] = out[i, t - COPY_LAG]
            else:
                out[i, t] = rng.choice(VOCAB, p=TRANS[out[i, t - 1]])
    return torch.from_numpy(out)

train_data = sample_seqs(N_TRAIN_SEQ)
val_data = sample_seqs(N_VAL_SEQ)

# ---------------- model: RetNet-style retention (parallel form) ----------------
class MultiScaleRetention(nn.Module):
    def __init__(self, d, heads=4):
        super().__init__()
        self.h = heads
        self.dk = d // heads
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d, bias=False)
        self.g = nn.Linear(d, d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.gn = nn.GroupNorm(heads, d)
        gammas = 1 - 2 ** (-5 - torch.arange(heads, dtype=torch.float32))
        self.register_buffer("log_gamma", torch.log(gammas))

    def decay_mask(self, n):
        i = torch.arange(n, dtype=torch.float32)
        diff = i[:, None] - i[None, :]
        mask = torch.exp(self.log_gamma[:, None, None] * diff)
        return mask * (diff >= 0).float()

    def forward(self, x):
        b, n, d = x.shape
        q = self.q(x).view(b, n, self.h, self.dk).transpose(1, 2)
        k = self.k(x).view(b, n, self.h, self.dk).transpose(1, 2) / math.sqrt(self.dk)
        v = self.v(x).view(b, n, self.h, self.dk).transpose(1, 2)
        att = (q @ k.transpose(-1, -2)) * self.decay_mask(n)
        y = (att @ v).transpose(1, 2).reshape(b * n, d)
        y = self.gn(y).view(b, n, d)
        return self.o(F.silu(self.g(x)) * y)

class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.ret = MultiScaleRetention(d)
        self.ln2 = nn.LayerNorm(d)
        self.ffn = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.ret(self.ln1(x))
        return x + self.ffn(self.ln2(x))

class RetNetLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(SEQ, D)
        self.blocks = nn.ModuleList([Block(D) for _ in range(LAYERS)])
        self.ln = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB)

    def forward(self, idx):
        x = self.emb(idx) + self.pos(torch.arange(idx.shape[1]))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))

model = RetNetLM()
opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WD)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 30) * 0.97 ** s)
n_params = sum(p.numel() for p in model.parameters())

def log_begin(info):
    print("number of parameters: %.2fM" % (info["params"] / 1e6,))
    print("running on device cpu")

def log_iter(step, S, loss, lr, dt, ntok):
    if step % 10 == 0:
        print(f"iter_dt {dt * 1000:.2f}ms; iter {step}: train loss {loss.item():.5f}")

def log_eval(step, S, va):
    if step == 0:
        return
    print("train final score: loss %.4f" % va["train_loss"])
    print("test final score: %d/%d = %.2f%% correct" % (va["correct"], va["total"], 100 * va["acc"]))
    print("saving model")

def log_end(va, secs):
    pass


def get_batch(data):
    ix = torch.randint(len(data), (BATCH,))
    chunk = data[ix]
    return chunk[:, :-1], chunk[:, 1:]

def evaluate():
    model.eval()
    with torch.no_grad():
        x, y = val_data[:, :-1], val_data[:, 1:]
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1)).item()
        acc = (logits.argmax(-1) == y).float().mean().item()
        xt, yt = train_data[:N_VAL_SEQ, :-1], train_data[:N_VAL_SEQ, 1:]
        tl = F.cross_entropy(model(xt).reshape(-1, VOCAB), yt.reshape(-1)).item()
    model.train()
    return {"loss": loss, "ppl": math.exp(min(loss, 50)), "acc": acc, "correct": int(acc * y.numel()), "total": y.numel(), "train_loss": tl}

log_begin({"params": n_params, "vocab": VOCAB, "seq": SEQ, "batch": BATCH, "steps": STEPS, "lr": LR,
           "train_batches": N_TRAIN_SEQ // BATCH, "val_batches": N_VAL_SEQ // BATCH})
t0 = time.time()
tl = time.time()
va = evaluate()
log_eval(0, STEPS, va)
for step in range(STEPS):
    model.train()
    x, y = get_batch(train_data)
    logits = model(x)
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
    opt.step()
    sched.step()
    dt = time.time() - tl
    tl = time.time()
    log_iter(step, STEPS, loss, opt.param_groups[0]["lr"], dt, BATCH * SEQ)
    if (step + 1) % EVAL_EVERY == 0:
        va = evaluate()
        log_eval(step + 1, STEPS, va)
log_end(va, time.time() - t0)
