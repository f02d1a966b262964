"""Extractive question answering by span prediction on synthetic token sequences.
A context is 32 tokens: filler tokens 12..39 plus three different key tokens (4..11), each followed by its answer;
the question is one of the three key tokens and the answer is the span right after it, whose length (1-3) is
fixed by the key token. Model: token embedding (32) -> bidirectional GRU (48 per direction); the question token's
embedding is projected and multiplied into every position; two linear heads give start and end logits over the 32
positions; loss = cross-entropy(start) + cross-entropy(end). Adam; metric: validation exact match of the span.
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
NAME = "spanqa"
MET = "val_em"
HIGHER = True
LR, BATCH, EPOCHS = 1e-5, 32, 8
DROPOUT = 0.0
L, V, E, H = 32, 40, 32, 48
N_TRAIN, N_VAL = 1600, 400

_STD = ("ep", "tl", "vl", "vm", "lr", "secs", "el", "best", "prev_vl", "nb")


def _extras(m):
    return {k: v for k, v in m.items() if k not in _STD}


def log_start(info):
    print(f"== Training run: {info['name']} ==")
    print(f"''Parameters: {info['n_params']}, lr {info['lr']}, batch {info['batch']}''")
    print('{| class="wikitable sortable"')
    print(f"! Epoch !! Train loss !! Val loss !! {MET} !! " + " !! ".join(["extra"]))


def log_step(ep, i, n, loss, lr, extra):
    pass


def log_epoch(ep, E, m):
    print("|-")
    ex = "; ".join(f"{k} {v:.3f}" for k, v in _extras(m).items())
    print(f"| {ep} || {m['tl']:.4f} || {m['vl']:.4f} || {m['vm']:.4f} || {ex}")


def log_end(m):
    print("|}")
    print(f"Best {MET}: " + "'" * 3 + f"{m['best']:.4f}" + "'" * 3)


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
LOG_EVERY = max(1, N_BATCHES // 3)


def make_split(n, g):
    ctx = torch.randint(12, V, (n, L), generator=g)
    q = torch.zeros(n, dtype=torch.long)
    st = torch.zeros(n, dtype=torch.long)
    en = torch.zeros(n, dtype=torch.long)
    for j in range(n):
        keys = (torch.randperm(8, generator=g)[:3] + 4).tolist()
        slots = sorted(random.sample(range(0, 8), 3))
        for k, s in zip(keys, slots):
            p = s * 4
            ctx[j, p] = k
        pick = random.randrange(3)
        k, p = keys[pick], slots[pick] * 4
        ln = 1 + (k % 3)
        q[j], st[j], en[j] = k, p + 1, p + ln
    return ctx, q, st, en


g = torch.Generator().manual_seed(0)
Xtr, Qtr, Str, Etr = make_split(N_TRAIN, g)
Xva, Qva, Sva, Eva = make_split(N_VAL, g)


class SpanQA(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E)
        self.rnn = nn.GRU(E, H, batch_first=True, bidirectional=True)
        self.qproj = nn.Linear(E, 2 * H)
        self.drop = nn.Dropout(DROPOUT)
        self.start = nn.Linear(4 * H, 1)
        self.end = nn.Linear(4 * H, 1)

    def forward(self, ctx, q):
        h, _ = self.rnn(self.drop(self.emb(ctx)))
        qv = torch.tanh(self.qproj(self.emb(q))).unsqueeze(1)
        z = self.drop(torch.cat([h, h * qv], -1))
        return self.start(z).squeeze(-1), self.end(z).squeeze(-1)


model = SpanQA()
opt = torch.optim.Adam(model.parameters(), lr=LR)


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for b in range(N_BATCHES):
        idx = perm[b * BATCH:(b + 1) * BATCH]
        yield Xtr[idx], Qtr[idx], Str[idx], Etr[idx]


def step_fn(batch):
    ctx, q, s, e = batch
    ls, le = model(ctx, q)
    loss = F.cross_entropy(ls, s) + F.cross_entropy(le, e)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item(), {}


def evaluate():
    ls, le = model(Xva, Qva)
    loss = (F.cross_entropy(ls, Sva) + F.cross_entropy(le, Eva)).item()
    ps, pe = ls.argmax(1), le.argmax(1)
    em = ((ps == Sva) & (pe == Eva)).float().mean().item()
    sacc = (ps == Sva).float().mean().item()
    return loss, em, {"start_acc": sacc}


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
