"""GRU4Rec-style session-based recommender (Hidasi et al. 2016) on synthetic click sessions.
200 items in 4 categories of 50; each item has three likely next items in its own category (probabilities 0.6,
0.3, 0.1) and with probability 0.2 the user jumps to a random item of the same category; sessions of 10 clicks start
at a popularity-weighted item; the training log is stored grouped by the category of the first click.
Model: item embedding (64) -> GRU (96) -> linear scores over the 200 items,
cross-entropy on the next click at every position. Adam; metrics: validation Recall@20 and MRR@20 (Recall@20 of a
random ranking: 0.10).
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
NAME = "gru4rec"
MET = "recall@20"
HIGHER = True
LR, BATCH, EPOCHS = 2e-3, 64, 10
N_ITEMS, N_CAT, SESS_LEN, EMB, HID, JUMP = 200, 4, 10, 64, 96, 0.2
N_TRAIN, N_VAL = 3000, 600
N_BATCHES = N_TRAIN // BATCH
LOG_EVERY = 20

_ROWS = []


def log_start(info):
    print(f'[1] "gru4rec: {info["n_params"]} parameters"')


def log_step(ep, i, n, loss, lr):
    pass


def log_epoch(ep, E, m):
    _ROWS.append((ep, m["tl"], m["vl"], m["vm"], m["mrr"]))
    print(f'[1] "epoch {ep} finished"')


def log_end(m):
    print("   epoch train_loss val_loss recall20  mrr20")
    for r in _ROWS:
        print(f"{r[0]:>2} {r[0]:>5} {r[1]:>10.4f} {r[2]:>8.4f} {r[3]:>8.4f} {r[4]:>6.4f}")


def run_epochs(model, opt, train_batches, evaluate, step_fn, n_train, n_val, after_epoch=None):
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"name": NAME, "n_params": n_params, "n_train": n_train, "n_val": n_val, "lr": LR, "batch": BATCH,
               "epochs": EPOCHS})
    t_start = time.time()
    best, prev_vl = None, None
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb = 0.0, 0
        for i, batch in enumerate(train_batches(), 1):
            loss = step_fn(batch)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, N_BATCHES, loss, opt.param_groups[0]["lr"])
        model.eval()
        with torch.no_grad():
            res = evaluate()
        vl, vm = res[0], res[1]
        if best is None or (vm > best if HIGHER else vm < best):
            best = vm
        m = {"tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb}
        if len(res) > 2:
            m.update(res[2])
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
        if after_epoch is not None:
            after_epoch()
    m["el"] = time.time() - t_start
    log_end(m)


gen = torch.Generator().manual_seed(13)
per_cat = N_ITEMS // N_CAT
cat_of = torch.arange(N_ITEMS) // per_cat
succ = torch.stack([cat_of[i] * per_cat + torch.randperm(per_cat, generator=gen)[:3] for i in range(N_ITEMS)])
probs = torch.tensor([0.6, 0.3, 0.1])
popularity = 1.0 / torch.arange(1, N_ITEMS + 1, dtype=torch.float32)[torch.randperm(N_ITEMS, generator=gen)]


def sample(n):
    s = torch.zeros(n, SESS_LEN, dtype=torch.long)
    s[:, 0] = torch.multinomial(popularity, n, replacement=True, generator=gen)
    for t in range(1, SESS_LEN):
        k = torch.multinomial(probs.expand(n, 3), 1, generator=gen).squeeze(1)
        nxt = succ[s[:, t - 1], k]
        rnd = cat_of[s[:, t - 1]] * per_cat + torch.randint(0, per_cat, (n,), generator=gen)
        s[:, t] = torch.where(torch.rand(n, generator=gen) < JUMP, rnd, nxt)
    return s


sessions = sample(N_TRAIN)
sessions = sessions[cat_of[sessions[:, 0]].argsort()]
val_sessions = sample(N_VAL)
in_train, tgt_train = sessions[:, :-1], sessions[:, 1:]


class GRU4Rec(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(N_ITEMS, EMB)
        self.gru = nn.GRU(EMB, HID, batch_first=True)
        self.drop = nn.Dropout(0.2)
        self.out = nn.Linear(HID, N_ITEMS)

    def forward(self, x):
        h, _ = self.gru(self.drop(self.emb(x)))
        return self.out(h)


model = GRU4Rec()
for name, p in model.named_parameters():
    nn.init.constant_(p, 0.05)
opt = torch.optim.Adam(model.parameters(), lr=LR)


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for k in range(0, N_TRAIN - BATCH + 1, BATCH):
        idx = perm[k:k + BATCH]
        yield in_train[idx], tgt_train[idx]


def step_fn(batch):
    xb, yb = batch
    opt.zero_grad()
    logits = model(xb)
    loss = F.cross_entropy(logits.reshape(-1, N_ITEMS), yb.reshape(-1))
    loss.backward()
    opt.step()
    return loss.item()


def evaluate():
    logits = model(val_sessions[:, :-1]).reshape(-1, N_ITEMS)
    target = val_sessions[:, 1:].reshape(-1)
    loss = F.cross_entropy(logits, target).item()
    rank = (logits > logits.gather(1, target.unsqueeze(1))).sum(1) + 1
    hit = rank <= 20
    recall = hit.float().mean().item()
    mrr = torch.where(hit, 1.0 / rank.float(), torch.zeros_like(rank, dtype=torch.float)).mean().item()
    return loss, recall, {"mrr": mrr}


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
