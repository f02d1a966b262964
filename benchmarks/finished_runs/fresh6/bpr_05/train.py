"""Neural collaborative filtering (NeuMF-style: GMF branch + MLP branch) trained with the BPR pairwise loss on
synthetic implicit feedback: 400 users and 500 items with hidden 8-dim taste vectors; each user's positives are
drawn from their highest-affinity items. Validation holds out 5 positives per user and reports BPR loss and AUC."""
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
LR = 0.003
BATCH_SIZE = 256
EPOCHS = 20
LOG_EVERY = 10
N_USERS = 400
N_ITEMS = 500
POS_PER_USER = 20
DIM = 32
WEIGHT_DECAY = 0.0001

torch.set_num_threads(1)
torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)

UNITS = {}


def info(msg):
    print(msg)


def wrap_epoch(it, epoch):
    return it


def on_step(epoch, step, n_steps, m, lr, gstep):
    pass


def on_epoch(epoch, n_steps, tr, va, elapsed, lr, gstep):
    tr_s = ", ".join(f"{k} {v:.4f}{UNITS.get(k, '')}" for k, v in tr.items())
    va_s = ", ".join(f"{k} {v:.4f}{UNITS.get(k, '')}" for k, v in va.items())
    print(f"Epoch {epoch:2d}/{EPOCHS}: train {tr_s} | val {va_s} | {elapsed:.2f} s ({elapsed * 1000 / n_steps:.1f} ms/step), lr {lr:.1e}")


def on_end(total, tr):
    print(f"Training took {total:.1f} s")


U_true = rng.standard_normal((N_USERS, 8))
V_true = rng.standard_normal((N_ITEMS, 8))
affinity = U_true @ V_true.T + 1.5 * rng.standard_normal((N_USERS, N_ITEMS))
train_pos, val_pos = [], []
for u in range(N_USERS):
    top = np.argsort(-affinity[u])[:60]
    chosen = rng.choice(top, size=POS_PER_USER + 5, replace=False)
    train_pos += [(u, i) for i in chosen[:POS_PER_USER]]
    val_pos += [(u, i) for i in chosen[POS_PER_USER:]]
train_pos = np.array(train_pos)
val_pos = np.array(val_pos)
seen_items = [set() for _ in range(N_USERS)]
for u, i in train_pos:
    seen_items[u].add(i)
for u, i in val_pos:
    seen_items[u].add(i)


def sample_negatives(users, gen):
    neg = gen.integers(0, N_ITEMS, size=len(users))
    for k, u in enumerate(users):
        while neg[k] in seen_items[u]:
            neg[k] = gen.integers(0, N_ITEMS)
    return neg


N_TRAIN = len(train_pos)
neg_rng = np.random.default_rng(SEED + 7)
val_neg = sample_negatives(val_pos[:, 0], np.random.default_rng(99))
val_loader = DataLoader(TensorDataset(torch.from_numpy(val_pos[:, 0]), torch.from_numpy(val_pos[:, 1]),
                                      torch.from_numpy(val_neg)), batch_size=1000)
N_VAL_BATCHES = len(val_loader)
info(f"users {N_USERS}  items {N_ITEMS}  train interactions {len(train_pos)}  val interactions {len(val_pos)}")


class NeuMF(nn.Module):
    def __init__(self):
        super().__init__()
        self.gmf_u = nn.Embedding(N_USERS, DIM)
        self.gmf_i = nn.Embedding(N_ITEMS, DIM)
        self.mlp_u = nn.Embedding(N_USERS, DIM)
        self.mlp_i = nn.Embedding(N_ITEMS, DIM)
        for e in (self.gmf_u, self.gmf_i, self.mlp_u, self.mlp_i):
            nn.init.normal_(e.weight, std=0.1)
        self.mlp = nn.Sequential(nn.Linear(2 * DIM, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU())
        self.head = nn.Linear(DIM + 32, 1)

    def forward(self, u, i):
        g = self.gmf_u(u) * self.gmf_i(i)
        h = self.mlp(torch.cat([self.mlp_u(u), self.mlp_i(i)], 1))
        return self.head(torch.cat([g, h], 1)).squeeze(1)


model = NeuMF()
info(f"model params: {sum(p.numel() for p in model.parameters()):,}")
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)


class EpochTriples:
    """fresh negatives every epoch"""

    def __iter__(self):
        neg = sample_negatives(train_pos[:, 0], neg_rng)
        ds = TensorDataset(torch.from_numpy(train_pos[:, 0]), torch.from_numpy(train_pos[:, 1]), torch.from_numpy(neg))
        return iter(DataLoader(ds, batch_size=BATCH_SIZE, shuffle=True))

    def __len__(self):
        return (N_TRAIN + BATCH_SIZE - 1) // BATCH_SIZE


train_loader = EpochTriples()


def forward_loss(batch):
    u, i, j = batch
    diff = model(u, i) - model(u, j)
    loss = -F.logsigmoid(diff).mean()
    return loss, {"loss": loss.item(), "acc": (diff > 0).float().mean().item()}


@torch.no_grad()
def evaluate():
    model.eval()
    tot, auc, n = 0.0, 0.0, 0
    for u, i, j in val_loader:
        diff = model(u, i) - model(u, j)
        tot += -F.logsigmoid(diff).sum().item()
        auc += (diff > 0).float().sum().item()
        n += len(u)
    return {"loss": tot / n, "auc": auc / n}


t0 = time.time()
gstep = 0
tr = {}
for epoch in range(1, EPOCHS + 1):
    model.train()
    t_ep = time.time()
    sums, seen = {}, 0
    n_steps = len(train_loader)
    for step, batch in enumerate(wrap_epoch(train_loader, epoch), 1):
        loss, m = forward_loss(batch)
        loss.backward()
        optimizer.step()
        gstep += 1
        bs = len(batch[0])
        for k, v in m.items():
            sums[k] = sums.get(k, 0.0) + v * bs
        seen += bs
        on_step(epoch, step, n_steps, m, optimizer.param_groups[0]["lr"], gstep)
    tr = {k: v / seen for k, v in sums.items()}
    val = evaluate()
    on_epoch(epoch, n_steps, tr, val, time.time() - t_ep, optimizer.param_groups[0]["lr"], gstep)
on_end(time.time() - t0, tr)
