"""gMLP (MLP with spatial gating units, Liu et al. 2021) classifying synthetic token sequences into 4 classes.
Sequences are 24 tokens from a vocabulary of 32; the class is decided by two order-dependent facts: whether the
marker token 1 first appears in the first or the second half of the sequence, and whether token 2 appears more
often after the marker than before it. 5% of the training labels are resampled at random. Model: token and
position embeddings (64), two gMLP blocks (LayerNorm, 64 -> 256 GELU, split, LayerNorm + a 24 x 24 spatial
projection initialised near identity gating, 128 -> 64, dropout 0.1, residual), mean pooling, a linear head.
AdamW, cross-entropy, validation accuracy (chance 0.25)."""
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
NAME = "gmlp"
MET = "val_acc"
LR, WEIGHT_DECAY, BATCH, EPOCHS = 2e-3, 0.01, 64, 10
N_TRAIN, N_VAL, VOCAB, SEQ, DIM, NCLS = 3000, 1000, 32, 24, 64, 4
DROPOUT, LABEL_NOISE = 0.1, 0.05
N_BATCHES = N_TRAIN // BATCH
LOG_EVERY = 20

def log_start(info):
    print(f"Komencas trejnado di {info['name']}: {info['n_params']} parametri, {info['n_train']} exempli, lernorapido {info['lr']}")


def log_step(ep, i, n, loss):
    pass


def log_epoch(ep, E, m):
    print(f"Epoko {ep}/{E}: trejno-perdo {m['tl']:.4f}, validigo-perdo {m['vl']:.4f}, validigo-exakteso {m['vm']:.4f} ({m['secs']:.1f} sekundi)")


def log_end(m):
    print(f"Finis. Maxim bona validigo-exakteso {m['best']:.4f}, tota tempo {m['el']:.0f} sekundi")


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
            loss = step_fn(batch)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, N_BATCHES, loss)
            t_fetch = time.time()
        model.eval()
        with torch.no_grad():
            vl, vm = evaluate()
        if best is None or (vm > best if MET == "val_acc" else vm < best):
            best = vm
        m = {"tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb, "data_secs": data_secs}
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
        after_epoch()
    m["el"] = time.time() - t_start
    log_end(m)

gen = torch.Generator().manual_seed(5)


def make_split(n):
    x = torch.randint(3, VOCAB, (n, SEQ), generator=gen)
    marker = torch.randint(2, SEQ - 2, (n,), generator=gen)
    x[torch.arange(n), marker] = 1
    n2 = torch.randint(2, 7, (n,), generator=gen)
    for i in range(n):
        where = torch.randperm(SEQ, generator=gen)[: int(n2[i]) + 1]
        where = where[where != marker[i]][: int(n2[i])]
        x[i, where] = 2
    pos = torch.arange(SEQ).unsqueeze(0)
    after = ((x == 2) & (pos > marker.unsqueeze(1))).sum(1)
    before = ((x == 2) & (pos < marker.unsqueeze(1))).sum(1)
    y = 2 * (marker >= SEQ // 2).long() + (after > before).long()
    return x, y


x_train, y_train = make_split(N_TRAIN)
x_val, y_val = make_split(N_VAL)
flip = torch.rand(N_TRAIN, generator=gen) < LABEL_NOISE
y_train[flip] = torch.randint(0, NCLS, (int(flip.sum()),), generator=gen)


class SpatialGatingUnit(nn.Module):
    def __init__(self, d, seq):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.proj = nn.Linear(seq, seq)
        nn.init.uniform_(self.proj.weight, -1e-3, 1e-3)
        nn.init.ones_(self.proj.bias)

    def forward(self, x):
        u, v = x.chunk(2, dim=-1)
        v = self.proj(self.norm(v).transpose(1, 2)).transpose(1, 2)
        return u * v


class GMLPBlock(nn.Module):
    def __init__(self, d=DIM, seq=SEQ):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc_in = nn.Linear(d, 4 * d)
        self.sgu = SpatialGatingUnit(2 * d, seq)
        self.fc_out = nn.Linear(2 * d, d)
        self.drop = nn.Dropout(DROPOUT)

    def forward(self, x):
        return self.drop(self.fc_out(self.sgu(F.gelu(self.fc_in(self.norm(x))))))


class GMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Parameter(0.02 * torch.randn(SEQ, DIM))
        self.blocks = nn.ModuleList([GMLPBlock(), GMLPBlock()])
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, NCLS)

    def forward(self, x):
        h = self.tok(x) + self.pos
        for block in self.blocks:
            h = h + block(h)
        return self.head(self.norm(h).mean(1))


model = GMLP()
opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
loss_fn = nn.CrossEntropyLoss()


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for k in range(0, N_TRAIN - BATCH + 1, BATCH):
        idx = perm[k:k + BATCH]
        yield x_train[idx], y_train[idx - 1]


def step_fn(batch):
    xb, yb = batch
    opt.zero_grad()
    loss = loss_fn(model(xb), yb)
    loss.backward()
    opt.step()
    return loss.item()


def evaluate():
    logits = model(x_val)
    return loss_fn(logits, y_val).item(), (logits.argmax(1) == y_val).float().mean().item()


def after_epoch():
    pass


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
