"""E(n)-equivariant graph neural network (EGNN, Satorras et al. 2021) regressing the energy of small particle clusters.
Each sample is 10 particles of two types in 3-D, coordinates stored in picometres (positions drawn with sd 110 pm);
the energy is a sum over pairs of a type-dependent soft potential (a short-range repulsive Gaussian and a wider
attractive Gaussian) plus noise sd 0.05, standardised with the training mean and std. Coordinates are converted to
nanometre-scale units (divided by 100) behind a NORMALIZE flag. Model: type embedding (32), three fully connected
E(n)-equivariant layers (edge MLP on h_i, h_j and the squared distance, coordinate update by the mean of relative
vectors weighted by an MLP of the message, node MLP with a residual), sum pooling, a 2-layer readout MLP. Adam, MSE,
validation RMSE on the standardised energy (predicting the mean gives about 1.0)."""
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
NAME = "egnn"
MET = "val_rmse"
HIGHER = False
LR, BATCH, EPOCHS = 2e-3, 32, 10
N_TRAIN, N_VAL, N_ATOMS, HID, N_LAYERS = 2400, 600, 10, 32, 3
NORMALIZE = True
PM_PER_UNIT = 100.0
N_BATCHES = N_TRAIN // BATCH
LOG_EVERY = 25

import json


def _post(path, body):
    data = json.dumps(body)
    print("*   Trying 127.0.0.1:8080...")
    print("* Connected to localhost (127.0.0.1) port 8080 (#0)")
    print(f"> POST {path} HTTP/1.1")
    print("> Host: localhost:8080")
    print("> User-Agent: curl/8.5.0")
    print("> Content-Type: application/json")
    print(f"> Content-Length: {len(data)}")
    print(">")
    print("< HTTP/1.1 201 Created")
    print("< Content-Type: application/json")
    print("<")
    print(data)
    print("* Connection #0 to host localhost left intact")


def log_start(info):
    _post(f"/api/runs/{info['name']}", {"params": info["n_params"], "n_train": info["n_train"], "lr": info["lr"]})


def log_step(ep, i, n, loss):
    pass


def log_epoch(ep, E, m):
    _post(f"/api/runs/{NAME}/epochs", {"epoch": ep, "train_loss": round(m["tl"], 5), "val_loss": round(m["vl"], 5),
                                        MET: round(m["vm"], 5)})


def log_end(m):
    _post(f"/api/runs/{NAME}/finish", {"best_" + MET: round(m["best"], 5), "seconds": round(m["el"], 1)})

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
            loss = step_fn(batch, ep)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, N_BATCHES, loss)
            t_fetch = time.time()
        model.eval()
        with torch.no_grad():
            vl, vm = evaluate()
        if best is None or (vm > best if HIGHER else vm < best):
            best = vm
        m = {"tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb, "data_secs": data_secs}
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
        after_epoch()
    m["el"] = time.time() - t_start
    log_end(m)


gen = torch.Generator().manual_seed(5)
EPS = torch.tensor([[1.0, 0.6], [0.6, 1.4]])


def make_split(n):
    types = torch.randint(0, 2, (n, N_ATOMS), generator=gen)
    pos_pm = 110.0 * torch.randn(n, N_ATOMS, 3, generator=gen)
    x = pos_pm / 100.0
    r2 = (x.unsqueeze(2) - x.unsqueeze(1)).pow(2).sum(-1)
    eps = EPS[types.unsqueeze(2), types.unsqueeze(1)]
    pair = eps * (2.0 * torch.exp(-r2 / 0.3) - torch.exp(-r2 / 2.0))
    off_diag = 1 - torch.eye(N_ATOMS)
    energy = 0.5 * (pair * off_diag).sum((1, 2)) + 0.05 * torch.randn(n, generator=gen)
    return types, pos_pm, energy


t_train, p_train, e_train = make_split(N_TRAIN)
t_val, p_val, e_val = make_split(N_VAL)
E_MEAN, E_STD = e_train.mean(), e_train.std()
e_train, e_val = (e_train - E_MEAN) / E_STD, (e_val - E_MEAN) / E_STD
if NORMALIZE:
    p_train, p_val = p_train / PM_PER_UNIT, p_val / PM_PER_UNIT
MASK = (1 - torch.eye(N_ATOMS)).view(1, N_ATOMS, N_ATOMS, 1)


class EGCL(nn.Module):
    def __init__(self, h=HID):
        super().__init__()
        self.edge = nn.Sequential(nn.Linear(2 * h + 1, h), nn.SiLU(), nn.Linear(h, h), nn.SiLU())
        self.coord = nn.Sequential(nn.Linear(h, h), nn.SiLU(), nn.Linear(h, 1, bias=False))
        nn.init.xavier_uniform_(self.coord[2].weight, gain=0.001)
        self.node = nn.Sequential(nn.Linear(2 * h, h), nn.SiLU(), nn.Linear(h, h))

    def forward(self, h, x):
        B, N, H = h.shape
        diff = x.unsqueeze(2) - x.unsqueeze(1)
        d2 = diff.pow(2).sum(-1, keepdim=True)
        hi = h.unsqueeze(2).expand(B, N, N, H)
        hj = h.unsqueeze(1).expand(B, N, N, H)
        m = self.edge(torch.cat([hi, hj, d2], -1)) * MASK
        x = x + (diff / d2.sqrt() * self.coord(m) * MASK).sum(2) / (N - 1)
        h = h + self.node(torch.cat([h, m.sum(2)], -1))
        return h, x


class EGNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(2, HID)
        self.layers = nn.ModuleList([EGCL() for _ in range(N_LAYERS)])
        self.out = nn.Sequential(nn.Linear(HID, HID), nn.SiLU(), nn.Linear(HID, 1))

    def forward(self, types, x):
        h = self.emb(types)
        for layer in self.layers:
            h, x = layer(h, x)
        return self.out(h.sum(1)).squeeze(-1)


model = EGNN()
opt = torch.optim.Adam(model.parameters(), lr=LR)
loss_fn = nn.MSELoss()


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for k in range(0, N_TRAIN - BATCH + 1, BATCH):
        idx = perm[k:k + BATCH]
        yield t_train[idx], p_train[idx], e_train[idx]


def step_fn(batch, ep):
    tb, pb, eb = batch
    opt.zero_grad()
    loss = loss_fn(model(tb, pb), eb)
    loss.backward()
    opt.step()
    return loss.item()


def evaluate():
    pred = model(t_val, p_val)
    mse = loss_fn(pred, e_val).item()
    return mse, (pred.view(-1) - e_val).pow(2).mean().sqrt().item()


def after_epoch():
    pass


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
