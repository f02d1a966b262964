"""Pairwise reward model (Bradley-Terry preference loss, as in RLHF reward modelling) on synthetic token sequences.
Responses are 16 tokens from a vocabulary of 40; a hidden quality score counts 6 "good" tokens (+1 each), 6 "bad"
tokens (-1 each) and rewards a good token directly following another good one (+0.5). For each pair of responses the
preferred one is drawn from P(a preferred) = sigmoid(1.5 * (score_a - score_b)), so the label is noisy near ties.
Model: token embedding -> GRU (64) -> last hidden state -> MLP head (64 -> 64 -> 1) giving a scalar reward; loss
-log sigmoid(r_chosen - r_rejected), Adam. Metric: validation preference accuracy (the reward of the chosen response
above the rejected one; 0.5 is chance, about 0.84 is the best achievable given the label noise).
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
N_TRAIN, N_VAL = 2000, 500
LR, BATCH, EPOCHS = 0.003, 32, 6
WARMUP = 100
NAME = "reward"
MET = "val_pref_acc"
HIGHER = True

V, T = 40, 16
GOOD = torch.tensor([3, 7, 11, 19, 23, 31])
BAD = torch.tensor([5, 13, 17, 29, 35, 37])


def quality(seq):
    good = torch.isin(seq, GOOD)
    bad = torch.isin(seq, BAD)
    pairs = (good[:, 1:] & good[:, :-1]).sum(1)
    return good.sum(1).float() - bad.sum(1).float() + 0.5 * pairs.float()


def make_pairs(n, g):
    a = torch.randint(0, V, (n, T), generator=g)
    b = torch.randint(0, V, (n, T), generator=g)
    p = torch.sigmoid(1.5 * (quality(a) - quality(b)))
    a_wins = torch.rand(n, generator=g) < p
    chosen = torch.where(a_wins[:, None], a, b)
    rejected = torch.where(a_wins[:, None], b, a)
    return chosen, rejected


g = torch.Generator().manual_seed(7)
Ctr, Rtr = make_pairs(N_TRAIN, g)
Cva, Rva = make_pairs(N_VAL, g)
N_BATCHES = math.ceil(N_TRAIN / BATCH)
LOG_EVERY = 1000


class RewardModel(nn.Module):
    def __init__(self, emb=32, hid=64):
        super().__init__()
        self.emb = nn.Embedding(V, emb)
        self.gru = nn.GRU(emb, hid, batch_first=True)
        self.head = nn.Sequential(nn.Linear(hid, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, seq):
        _, h = self.gru(self.emb(seq))
        return self.head(h[-1]).squeeze(-1)


model = RewardModel()
opt = torch.optim.Adam(model.parameters(), lr=LR)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / WARMUP) * 0.5 * (1 + math.cos(math.pi * min(s, N_BATCHES * EPOCHS) / (N_BATCHES * EPOCHS))))


def log_start(info):
    pass


def log_step(ep, i, n, loss, lr, extra):
    pass


def _row(k, v):
    print(f"| {k:<22}| {v:<12}|")


def log_epoch(ep, E, m):
    print("-" * 39)
    _row("eval/", "")
    _row("    accuracy", f"{m['vm']:.3f}")
    _row("    loss", f"{m['vl']:.4f}")
    _row("    margin", f"{m['margin']:.3f}")
    _row("    reward_chosen", f"{m['r_chosen']:.3f}")
    _row("    reward_rejected", f"{m['r_rejected']:.3f}")
    _row("time/", "")
    _row("    epochs", str(ep))
    _row("    time_elapsed", str(int(m['el'])))
    _row("    total_timesteps", str(m['step'] * BATCH))
    _row("train/", "")
    _row("    learning_rate", f"{m['lr']:.3g}")
    _row("    loss", f"{m['tl']:.4f}")
    _row("    n_updates", str(m['step']))
    print("-" * 39)


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


_DT = [0.0]


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for i in range(0, N_TRAIN, BATCH):
        t0 = time.time()
        idx = perm[i:i + BATCH]
        batch = Ctr[idx], Rtr[idx]
        _DT[0] = time.time() - t0
        yield batch


def step_fn(batch):
    ch, rj = batch
    opt.zero_grad()
    r_c, r_r = model(ch), model(rj)
    loss = -F.logsigmoid(r_c - r_r).mean()
    loss.backward()
    opt.step()
    sched.step()
    acc = (r_c > r_r).float().mean().item()
    return loss.item(), {"acc": acc, "margin": (r_c - r_r).mean().item(), "data_time": _DT[0]}


def evaluate():
    r_c, r_r = model(Cva), model(Rva)
    vl = -F.logsigmoid(r_c - r_r).mean().item()
    acc = (r_c > r_r).float().mean().item()
    return vl, acc, {"margin": (r_c - r_r).mean().item(), "r_chosen": r_c.mean().item(), "r_rejected": r_r.mean().item()}


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
