"""Deep Knowledge Tracing (Piech et al. 2015) on simulated students.
12 skills with random difficulties; each student has an ability and a learning speed; 40 questions per student,
the skill repeats with probability 0.6; P(correct) = sigmoid(1.5 * (ability - difficulty + mastery)) and mastery of
a skill grows each time it is practised. Input: one-hot of (skill, correct) of each answer; an LSTM (64 units) and a
linear layer predict, for every skill, the probability that the next answer is correct; the loss is the binary
cross-entropy of the prediction for the skill actually asked next. Adam; metric: validation AUC (chance 0.5).
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
NAME = "dkt"
MET = "val_auc"
HIGHER = True
LR, BATCH, EPOCHS = 2e-3, 32, 12
K, T, HID = 12, 40, 64
N_TRAIN, N_VAL = 2400, 600
N_BATCHES = N_TRAIN // BATCH
LOG_EVERY = 25

import json


def log_start(info):
    print(json.dumps({"event": "start", **info}))


def log_step(ep, i, n, loss, lr):
    print(json.dumps({"event": "step", "epoch": ep, "step": i, "loss": round(loss, 5), "lr": lr}))


def log_epoch(ep, E, m):
    print(json.dumps({"event": "epoch", "epoch": ep, "train_loss": round(m["tl"], 5), "val_loss": round(m["vl"], 5),
                      MET: round(m["vm"], 5), "lr": m["lr"], "seconds": round(m["secs"], 2)}))


def log_end(m):
    print(json.dumps({"event": "end", "best_" + MET: m["best"], "seconds": round(m["el"], 1)}))


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


gen = torch.Generator().manual_seed(7)
difficulty = torch.randn(K, generator=gen)


def simulate(n):
    ability = torch.randn(n, generator=gen)
    speed = 0.05 + 0.2 * torch.rand(n, generator=gen)
    mastery = torch.zeros(n, K)
    skills = torch.zeros(n, T, dtype=torch.long)
    correct = torch.zeros(n, T)
    rows = torch.arange(n)
    cur = torch.randint(0, K, (n,), generator=gen)
    for t in range(T):
        switch = torch.rand(n, generator=gen) < 0.4
        cur = torch.where(switch, torch.randint(0, K, (n,), generator=gen), cur)
        p = torch.sigmoid(1.5 * (ability - difficulty[cur] + mastery[rows, cur]))
        c = (torch.rand(n, generator=gen) < p).float()
        skills[:, t] = cur
        correct[:, t] = c
        mastery[rows, cur] += speed * (0.5 + c)
    return skills, correct


s_train, c_train = simulate(N_TRAIN)
s_val, c_val = simulate(N_VAL)


class DKT(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(2 * K, HID, batch_first=True)
        self.out = nn.Linear(HID, K)

    def forward(self, skills, correct):
        x = F.one_hot(skills + K * correct.long(), 2 * K).float()
        h, _ = self.lstm(x)
        return self.out(h)


def next_step(logits, skills, correct):
    pred = logits[:, :-1].gather(2, skills[:, 1:].unsqueeze(2)).squeeze(2)
    return pred, correct[:, 1:]


def auc(scores, labels):
    order = scores.argsort()
    ranks = torch.empty_like(scores)
    ranks[order] = torch.arange(1, len(scores) + 1, dtype=scores.dtype)
    npos = labels.sum()
    nneg = len(labels) - npos
    return ((ranks[labels == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg)).item()


model = DKT()
crit = nn.BCEWithLogitsLoss()
opt = torch.optim.Adam(model.out.parameters(), lr=LR)


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for k in range(0, N_TRAIN - BATCH + 1, BATCH):
        idx = perm[k:k + BATCH]
        yield s_train[idx], c_train[idx]


def step_fn(batch):
    sb, cb = batch
    opt.zero_grad()
    pred, target = next_step(model(sb, cb), sb, cb)
    loss = crit(pred, target)
    loss.backward()
    opt.step()
    return loss.item()


def evaluate():
    pred, target = next_step(model(s_val, c_val), s_val, c_val)
    return crit(pred, target).item(), auc(pred.flatten(), target.flatten())


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
