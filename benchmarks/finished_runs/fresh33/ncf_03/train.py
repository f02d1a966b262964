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
SEED = 5521
torch.manual_seed(SEED)
np.random.seed(SEED)

# ---------------- config ----------------
N_USERS, N_ITEMS = 400, 300
FACTORS = 16
LAYERS = [32, 16]
NUM_NEG = 4
BATCH = 256
EPOCHS = 12
LR = 2e-3
TOPK = 10
N_EVAL_NEG = 49

# ---------------- data: implicit feedback from latent tastes ----------------
rng = np.random.RandomState(SEED)
U = rng.normal(0, 1, (N_USERS, 6))
V = rng.normal(0, 1, (N_ITEMS, 6))
pop = rng.normal(0, 0.8, N_ITEMS)
scores = U @ V.T + pop[None, :] + rng.gumbel(0, 1.0, (N_USERS, N_ITEMS))
train_pos, test_pos = [], []
user_items = []
for u in range(N_USERS):
    n = rng.randint(12, 30)
    items = np.argsort(-scores[u])[:n]
    items = rng.permutation(items)
    test_pos.append(items[0])
    user_items.append(set(items.tolist()))
    for i in items[1:]:
        train_pos.append((u, i))
train_pos = np.array(train_pos)
test_negs = []
for u in range(N_USERS):
    negs = []
    while len(negs) < N_EVAL_NEG:
        j = rng.randint(N_ITEMS)
        if j not in user_items[u]:
            negs.append(j)
    test_negs.append(negs)
eval_items = torch.tensor([[test_pos[u]] + test_negs[u] for u in range(N_USERS)])
eval_users = torch.arange(N_USERS)[:, None].expand_as(eval_items)

def get_train_instances():
    users, items, labels = [], [], []
    for u, i in train_pos:
        users.append(u); items.append(i); labels.append(1.0)
        for _ in range(NUM_NEG):
            j = rng.randint(N_ITEMS)
            while j in user_items[u]:
                j = rng.randint(N_ITEMS)
            users.append(u); items.append(j); labels.append(0.0)
    return torch.tensor(users), torch.tensor(items), torch.tensor(labels)

# ---------------- model: NeuMF (GMF + MLP) ----------------
class NeuMF(nn.Module):
    def __init__(self):
        super().__init__()
        self.gmf_u = nn.Embedding(N_USERS, FACTORS)
        self.gmf_i = nn.Embedding(N_ITEMS, FACTORS)
        self.mlp_u = nn.Embedding(N_USERS, LAYERS[0] // 2)
        self.mlp_i = nn.Embedding(N_ITEMS, LAYERS[0] // 2)
        mlp = []
        for a, b in zip(LAYERS[:-1], LAYERS[1:]):
            mlp += [nn.Linear(a, b), nn.ReLU()]
        self.mlp = nn.Sequential(*mlp)
        self.pred = nn.Linear(FACTORS + LAYERS[-1], 1)
        for e in (self.gmf_u, self.gmf_i, self.mlp_u, self.mlp_i):
            nn.init.normal_(e.weight, std=0.01)

    def forward(self, u, i):
        g = self.gmf_u(u) * self.gmf_i(i)
        m = self.mlp(torch.cat([self.mlp_u(u), self.mlp_i(i)], -1))
        return torch.sigmoid(self.pred(torch.cat([g, m], -1))).squeeze(-1)

model = NeuMF()
opt = torch.optim.Adam(model.parameters(), lr=LR)
crit = nn.BCEWithLogitsLoss()
n_params = sum(p.numel() for p in model.parameters())

def log_begin(info):
    print("NeuMF arguments: Namespace(batch_size=%d, epochs=%d, layers='%s', lr=%s, mf_dim=%d, num_neg=%d, out=0, verbose=1) " % (info["batch"], info["epochs"], str(LAYERS), info["lr"], info["factors"], info["num_neg"]))
    print("Load data done [%.1f s]. #user=%d, #item=%d, #train=%d, #test=%d" % (0.4, info["users"], info["items"], info["train"], info["test"]))

def log_init(va, secs):
    print('Init: HR = %.4f, NDCG = %.4f' % (va["hr"], va["ndcg"]))

def log_iter(*a):
    pass

def log_epoch(epoch, E, tr, va, t_train, t_eval):
    print('Iteration %d [%.1f s]: HR = %.4f, NDCG = %.4f, loss = %.4f [%.1f s]' % (epoch, t_train, va["hr"], va["ndcg"], tr["loss"], t_eval))

def log_end(best):
    print("End. Best Iteration %d:  HR = %.4f, NDCG = %.4f. " % best)


def evaluate():
    model.eval()
    with torch.no_grad():
        s = model(eval_users.reshape(-1), eval_items.reshape(-1)).view(N_USERS, -1)
        rank = (s[:, 1:] > s[:, :1]).sum(1)
        hit = (rank < TOPK).float()
        ndcg = torch.where(rank < TOPK, 1.0 / torch.log2(rank.float() + 2), torch.zeros(()))
    model.train()
    return {"hr": hit.mean().item(), "ndcg": ndcg.mean().item()}

log_begin({"users": N_USERS, "items": N_ITEMS, "train": len(train_pos), "test": N_USERS, "params": n_params,
           "batch": BATCH, "lr": LR, "epochs": EPOCHS, "num_neg": NUM_NEG, "factors": FACTORS})
t_init = time.time()
va = evaluate()
log_init(va, time.time() - t_init)
best = (-1, 0.0, 0.0)
for epoch in range(EPOCHS):
    t1 = time.time()
    users, items, labels = get_train_instances()
    perm = torch.randperm(len(labels))
    losses = []
    nb = (len(labels) + BATCH - 1) // BATCH
    for b in range(nb):
        idx = perm[b * BATCH:(b + 1) * BATCH]
        logits = model(users[idx], items[idx])
        loss = crit(logits, labels[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        log_iter(epoch, b, nb, loss, opt.param_groups[0]["lr"])
    t2 = time.time()
    va = evaluate()
    if va["hr"] > best[1]:
        best = (epoch, va["hr"], va["ndcg"])
    log_epoch(epoch, EPOCHS, {"loss": float(np.mean(losses)), "last": loss}, va, t2 - t1, time.time() - t2)
log_end(best)
