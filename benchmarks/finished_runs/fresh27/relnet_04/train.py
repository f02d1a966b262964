"""Relation network (Santoro et al. style) regressing a count from synthetic scenes. Each scene has 8 objects
described by position in pixels (x in 0-640, y in 0-480), radius in pixels (8-40) and a one-hot colour out of 4;
the target is the number of same-colour object pairs whose centres lie within 160 px of each other, plus noise
sd 0.3, standardised with the training statistics. Object features are scaled to unit range (positions / 640 and
/ 480, radius / 40) when NORMALIZE is set. Model: g = MLP(3 x 7 -> 96 -> 96 -> 96, ReLU) applied to all 64
ordered object pairs (o_i, o_j, o_i - o_j), summed, f = MLP(96 -> 64 -> 1). Adam, MSE, validation RMSE (the mean predictor gives about
1.0)."""
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
NAME = "relnet"
MET = "val_rmse"
LR, WEIGHT_DECAY, BATCH, EPOCHS = 2e-3, 0.3, 64, 12
N_TRAIN, N_VAL, K, NCOL, HID = 3000, 1000, 8, 4, 96
NORMALIZE = True
N_BATCHES = N_TRAIN // BATCH
LOG_EVERY = 20

def log_start(info):
    print(f"==> Fetching {info['name']}")
    print(f"==> Downloading {info['n_train']} training samples (model: {info['n_params']} parameters)")
    print("Already downloaded: synthetic")


def log_step(ep, i, n, loss):
    pass


def log_epoch(ep, E, m):
    print(f"==> Training {NAME} epoch {ep}/{E}")
    print(f"🍺  /opt/homebrew/Cellar/{NAME}/epoch-{ep}: train_loss {m['tl']:.4f}, val_loss {m['vl']:.4f}, {MET} {m['vm']:.4f}, {m['secs']:.1f}s")


def log_end(m):
    print("==> Caveats")
    print(f"best {MET} {m['best']:.4f} after {m['el']:.1f}s")


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

gen = torch.Generator().manual_seed(3)
n_all = N_TRAIN + N_VAL
pos = torch.rand(n_all, K, 2, generator=gen) * torch.tensor([640.0, 480.0])
rad = 8.0 + 32.0 * torch.rand(n_all, K, 1, generator=gen)
col = torch.randint(0, NCOL, (n_all, K), generator=gen)
dist = torch.cdist(pos, pos)
same = col.unsqueeze(2) == col.unsqueeze(1)
close = (dist < 160.0) & same & ~torch.eye(K, dtype=torch.bool)
count = close.float().sum((1, 2)) / 2
count = count + 0.3 * torch.randn(n_all, generator=gen)
target = ((count - count[:N_TRAIN].mean()) / count[:N_TRAIN].std()).unsqueeze(1)
feats = torch.cat([pos, rad, F.one_hot(col, NCOL).float()], dim=2)
if NORMALIZE:
    feats = feats / torch.tensor([640.0, 480.0, 40.0, 1.0, 1.0, 1.0, 1.0])
x_train, y_train = feats[:N_TRAIN], target[:N_TRAIN]
x_val, y_val = feats[N_TRAIN:], target[N_TRAIN:]


class RelationNet(nn.Module):
    def __init__(self, nf=2 + 1 + NCOL, hid=HID):
        super().__init__()
        self.g = nn.Sequential(nn.Linear(3 * nf, hid), nn.ReLU(), nn.Linear(hid, hid), nn.ReLU(),
                               nn.Linear(hid, hid), nn.ReLU())
        self.f = nn.Sequential(nn.Linear(hid, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x):
        b, k, nf = x.shape
        oi, oj = x.unsqueeze(2).expand(b, k, k, nf), x.unsqueeze(1).expand(b, k, k, nf)
        pairs = torch.cat([oi, oj, oi - oj], dim=3)
        rel = self.g(pairs.reshape(b, k * k, 3 * nf)).sum(1)
        return self.f(rel)


model = RelationNet()
opt = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
loss_fn = nn.MSELoss()


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for k in range(0, N_TRAIN - BATCH + 1, BATCH):
        idx = perm[k:k + BATCH]
        yield x_train[idx], y_train[idx]


def step_fn(batch):
    xb, yb = batch
    opt.zero_grad()
    loss = loss_fn(model(xb), yb)
    loss.backward()
    opt.step()
    return loss.item()


def evaluate():
    mse = loss_fn(model(x_val), y_val).item()
    return mse, math.sqrt(mse)


def after_epoch():
    pass


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
