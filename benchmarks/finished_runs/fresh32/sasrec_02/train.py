"""SASRec-style self-attentive sequential recommendation (Kang & McAuley 2018) on synthetic interaction histories.
80 items in 8 genres of 10; every user likes 2 genres; a user's next item is, with probability 0.55, the fixed
"follow-up" of the current item (a random permutation within its genre), with 0.35 a random item of one of the
user's genres and with 0.10 any item. Each user has 14 interactions; leave-one-out split as in the paper: the
model trains on next-item prediction over the first 13 items and is validated on predicting item 14 from the 13
before it. Model: item + learned position embeddings (d=48), two causal Transformer encoder layers (2 heads,
feed-forward 96, dropout), final LayerNorm, scores = hidden state . item embeddings (shared), full-softmax
cross-entropy over the 80 items; validation HR@10 and NDCG@10 (HR@10 chance 0.125).
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
N_ITEMS, N_GENRES, SEQ = 80, 8, 14
N_USERS = 1600
N_TRAIN, N_VAL = N_USERS, N_USERS
LR, BATCH, EPOCHS = 0.001, 16, 6
D, DROPOUT = 48, 0.2

g = torch.Generator().manual_seed(11)
genre_of = torch.arange(N_ITEMS) // (N_ITEMS // N_GENRES)
follow = torch.empty(N_ITEMS, dtype=torch.long)
for k in range(N_GENRES):
    members = torch.arange(k * 10, k * 10 + 10)
    follow[members] = members[torch.randperm(10, generator=g)]


def histories(n):
    seqs = torch.empty(n, SEQ, dtype=torch.long)
    for u in range(n):
        likes = torch.randperm(N_GENRES, generator=g)[:2]
        cur = int(likes[0]) * 10 + int(torch.randint(0, 10, (1,), generator=g))
        for t in range(SEQ):
            seqs[u, t] = cur
            r = float(torch.rand(1, generator=g))
            if r < 0.55:
                cur = int(follow[cur])
            elif r < 0.90:
                gk = int(likes[int(torch.randint(0, 2, (1,), generator=g))])
                cur = gk * 10 + int(torch.randint(0, 10, (1,), generator=g))
            else:
                cur = int(torch.randint(0, N_ITEMS, (1,), generator=g))
    return seqs + 1  # 0 is padding


S = histories(N_USERS)
Xtr, Ytr = S[:, :SEQ - 2], S[:, 1:SEQ - 1]
Xva, Yva = S[:, :SEQ - 1], S[:, SEQ - 1]
N_BATCHES = math.ceil(N_TRAIN / BATCH)


class SASRec(nn.Module):
    def __init__(self, n_items=N_ITEMS, d=D, p=DROPOUT):
        super().__init__()
        self.item = nn.Embedding(n_items + 1, d, padding_idx=0)
        self.pos = nn.Embedding(SEQ, d)
        self.drop = nn.Dropout(p)
        layer = nn.TransformerEncoderLayer(d, 2, 2 * d, p, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)

    def forward(self, seq):
        L = seq.shape[1]
        h = self.item(seq) + self.pos(torch.arange(L))
        mask = torch.triu(torch.full((L, L), float("-inf")), diagonal=1)
        h = self.blocks(self.drop(h), mask=mask)
        h = self.norm(h)
        return h @ self.item.weight[1:].T  # scores for items 1..N


def rank_metrics(scores, target):
    tgt = scores.gather(1, (target - 1)[:, None])
    rank = (scores > tgt).sum(1)
    hr = (rank < 10).float().mean().item()
    ndcg = torch.where(rank < 10, 1.0 / torch.log2(rank.float() + 2), torch.zeros_like(rank, dtype=torch.float)).mean().item()
    return hr, ndcg


model = SASRec()
opt = torch.optim.Adam(model.parameters(), lr=LR, betas=(0.9, 0.98))
LOG_EVERY = 5
from tqdm import tqdm

_bar = [None]


def log_start(info):
    print(f"users={N_USERS} items={N_ITEMS} maxlen={SEQ - 1} params={info['n_params']}")


def log_step(ep, i, n, loss, lr, extra):
    if _bar[0] is None:
        _bar[0] = tqdm(total=n, desc=f"Epoch {ep}/{EPOCHS}", unit="batch", file=sys.stderr, mininterval=0)
    _bar[0].set_postfix(loss=f"{loss:.4f}", hr=f"{extra['acc']:.3f}", lr=f"{lr:.1e}")
    _bar[0].update(i - _bar[0].n)
    if i == n:
        _bar[0].close()
        _bar[0] = None


def log_epoch(ep, E, m):
    print(f"Epoch {ep:2d} | train_loss {m['tl']:.4f} | val_loss {m['vl']:.4f} | HR@10 {m['vm']:.4f} | NDCG@10 {m['ndcg']:.4f}")


def log_end(m, hist):
    print(f"best HR@10 {m['best']:.4f}")


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for i in range(0, N_TRAIN, BATCH):
        idx = perm[i:i + BATCH]
        yield Xtr[idx], Ytr[idx]


def step_fn(batch):
    x, y = batch
    opt.zero_grad()
    scores = model(x)
    loss = F.cross_entropy(scores.reshape(-1, N_ITEMS), (y - 1).reshape(-1))
    loss.backward()
    opt.step()
    hr, _ = rank_metrics(scores[:, -1], y[:, -1])
    return loss.item(), {"acc": hr}


def evaluate():
    scores = model(Xva)[:, -1]
    vl = F.cross_entropy(scores, Yva - 1).item()
    hr, ndcg = rank_metrics(scores, Yva)
    return vl, hr, {"ndcg": ndcg}


def run_epochs():
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"n_params": n_params, "n_train": N_TRAIN, "n_val": N_VAL, "lr": LR, "batch": BATCH, "epochs": EPOCHS,
               "n_batches": N_BATCHES})
    t_start = time.time()
    best = None
    step = 0
    hist = []
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb, accs = 0.0, 0, 0.0
        t_data = 0.0
        t_last = time.time()
        for i, batch in enumerate(train_batches(), 1):
            t_data += time.time() - t_last
            loss, extra = step_fn(batch)
            step += 1
            tot += loss
            nb += 1
            accs += extra.get("acc", 0.0)
            if i % LOG_EVERY == 0 or i == N_BATCHES:
                extra = dict(extra)
                extra.update({"step": step, "elapsed": time.time() - t_start, "data_time": t_data / i,
                              "iter_time": (time.time() - t0) / i})
                log_step(ep, i, N_BATCHES, loss, opt.param_groups[0]["lr"], extra)
            t_last = time.time()
        model.eval()
        with torch.no_grad():
            res = evaluate()
        vl, vm = res[0], res[1]
        improved = best is None or vm > best
        if improved:
            best = vm
        m = {"ep": ep, "tl": tot / nb, "ta": accs / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"],
             "secs": time.time() - t0, "el": time.time() - t_start, "best": best, "improved": improved, "step": step,
             "nb": nb}
        if len(res) > 2:
            m.update(res[2])
        hist.append(m)
        log_epoch(ep, EPOCHS, m)
    log_end(m, hist)


run_epochs()
