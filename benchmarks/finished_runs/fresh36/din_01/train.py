# Deep Interest Network (DIN) click-through-rate model on synthetic user behaviour logs.
# Attention ("activation unit") over the clicked-item history w.r.t. the candidate item,
# sum pooling, MLP head with Dice-free PReLU, BCE loss, AUC on a held-out day.
import math
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 2024
random.seed(SEED)
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)

N_USERS, N_ITEMS, N_CATS, HIST_LEN = 300, 400, 12, 10
EMB_DIM = 16
BATCH_SIZE = 48
EPOCHS = 5
LR = 3e-3
L2_EMB = 1e-3      # mini-batch aware regularization on the embeddings that appear in the batch
DROPOUT = 0.2


def make_logs(n, rng):
    item_cat = rng.randint(0, N_CATS, size=N_ITEMS)
    user_pref = rng.dirichlet(np.full(N_CATS, 0.3), size=N_USERS)
    users = rng.randint(0, N_USERS, size=n)
    hist = np.zeros((n, HIST_LEN), dtype=np.int64)
    target = rng.randint(0, N_ITEMS, size=n)
    label = np.zeros(n, dtype=np.float32)
    by_cat = [np.where(item_cat == c)[0] for c in range(N_CATS)]
    user_bias = rng.normal(0, 0.3, size=N_USERS)
    for i in range(n):
        u = users[i]
        cats = rng.choice(N_CATS, size=HIST_LEN, p=user_pref[u])
        hist[i] = [rng.choice(by_cat[c]) if len(by_cat[c]) else 0 for c in cats]
        match = (item_cat[hist[i]] == item_cat[target[i]]).mean()
        logit = 8.0 * match - 2.0 + user_bias[u] + rng.normal(0, 0.3)
        label[i] = float(rng.rand() < 1.0 / (1.0 + math.exp(-logit)))
    return users, hist, target, item_cat, label


rng = np.random.RandomState(SEED)
users, hist, target, item_cat, label = make_logs(20000, rng)
n_train = 16000
item_cat_t = torch.tensor(item_cat)


def tensors(sl):
    return (torch.tensor(users[sl]), torch.tensor(hist[sl]), torch.tensor(target[sl]), torch.tensor(label[sl]))


train_set = tensors(slice(0, n_train))
val_set = tensors(slice(n_train, None))


def batches(data, bs, shuffle):
    n = data[0].shape[0]
    idx = torch.randperm(n) if shuffle else torch.arange(n)
    for s in range(0, n, bs):
        b = idx[s:s + bs]
        yield tuple(t[b] for t in data)


def auc_score(y, p):
    order = np.argsort(p)
    y = np.asarray(y)[order]
    n_pos = y.sum()
    n_neg = len(y) - n_pos
    ranks = np.arange(1, len(y) + 1)
    return float((ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


class ActivationUnit(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(4 * d, 36), nn.PReLU(), nn.Linear(36, 1))

    def forward(self, h, t):
        t = t.unsqueeze(1).expand_as(h)
        return self.fc(torch.cat([h, t, h - t, h * t], dim=-1)).squeeze(-1)


class DIN(nn.Module):
    def __init__(self):
        super().__init__()
        self.user_emb = nn.Embedding(N_USERS, EMB_DIM)
        self.item_emb = nn.Embedding(N_ITEMS, EMB_DIM)
        self.cat_emb = nn.Embedding(N_CATS, EMB_DIM)
        for e in (self.user_emb, self.item_emb):
            nn.init.normal_(e.weight, std=0.05)
        nn.init.normal_(self.cat_emb.weight, std=0.5)
        d = 2 * EMB_DIM
        self.att = ActivationUnit(d)
        self.mlp = nn.Sequential(
            nn.Linear(EMB_DIM + 2 * d, 80), nn.PReLU(), nn.Dropout(DROPOUT),
            nn.Linear(80, 40), nn.PReLU(), nn.Dropout(DROPOUT),
            nn.Linear(40, 1))

    def embed_item(self, i):
        return torch.cat([self.item_emb(i), self.cat_emb(item_cat_t[i])], dim=-1)

    def forward(self, u, h, t):
        he = self.embed_item(h)
        te = self.embed_item(t)
        w = self.att(he, te)                      # DIN keeps the raw weights (no softmax)
        pooled = (w.unsqueeze(-1) * he).sum(1)
        x = torch.cat([self.user_emb(u), pooled, te], dim=-1)
        return self.mlp(x).squeeze(-1)

    def mba_reg(self, u, h, t):
        ids = torch.unique(torch.cat([h.flatten(), t]))
        return (self.item_emb(ids).pow(2).sum() + self.user_emb(torch.unique(u)).pow(2).sum())


model = DIN()
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)


def evaluate(data):
    model.eval()
    ps, ys, tot = [], [], 0.0
    with torch.no_grad():
        for u, h, t, y in batches(data, 1024, False):
            logit = model(u, h, t)
            tot += F.binary_cross_entropy_with_logits(logit, y, reduction="sum").item()
            ps.append(torch.sigmoid(logit).numpy())
            ys.append(y.numpy())
    model.train()
    return tot / data[0].shape[0], auc_score(np.concatenate(ys), np.concatenate(ps))


steps = math.ceil(n_train / BATCH_SIZE)
for epoch in range(1, EPOCHS + 1):
    print(f"Epoch {epoch}/{EPOCHS}")
    t0 = time.time()
    model.train()
    run_loss, seen, ps, ys = 0.0, 0, [], []
    for step, (u, h, t, y) in enumerate(batches(train_set, BATCH_SIZE, True), 1):
        optimizer.zero_grad()
        logit = model(u, h, t)
        loss = criterion(logit, y)
        (loss + L2_EMB * model.mba_reg(u, h, t)).backward()
        optimizer.step()
        run_loss += loss.item() * y.shape[0]
        seen += y.shape[0]
        ps.append(torch.sigmoid(logit.detach()).numpy())
        ys.append(y.numpy())
    tr_loss = run_loss / seen
    tr_auc = auc_score(np.concatenate(ys), np.concatenate(ps))
    val_loss, val_auc = evaluate(val_set)
    dt = time.time() - t0
    print(f"{steps}/{steps} [==============================] - {dt:.0f}s {1000 * dt / steps:.0f}ms/step - loss: {tr_loss:.4f} - auc: {tr_auc:.4f} - val_loss: {val_loss:.4f} - val_auc: {val_auc:.4f}")
