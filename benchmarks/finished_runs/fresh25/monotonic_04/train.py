"""Learned index: a monotonic MLP maps a sorted key to its position in the key array (the empirical CDF), as in the
learned-index-structures idea. 20000 integer-like keys from a mixture (a lognormal bulk, five dense clusters and a
sparse uniform tail up to 1e5); the input is the standardised log key, the target the rank / N. Monotonicity is
enforced by positive weights (softplus of free parameters) and ReLU units: 1 -> 64 -> 64 -> 1. 90% of the keys train
the model, 10% are held out; the metric is the mean absolute position error in slots (|pred - rank/N| * N)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "learned_index"
MET = "val_pos_err"
LR, BATCH, EPOCHS, WD = 0.01, 256, 15, 1e-5
N_KEYS = 20000


def log_start(info):
    print(f"Modèl {info['name']}: {info['n_params']} paramètres, {info['n_train']} claus d'entrainament")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    print(f"Epòca {ep}/{E}: pèrda d'entrainament {m['tl']:.6f}, pèrda de validacion {m['vl']:.6f}, error mejana {m['vm']:.2f} posicions")


def log_end(m):
    print(f"Acabat en {m['el']:.1f} s. Error mejana finala: {m['vm']:.2f} posicions")

gen = torch.Generator().manual_seed(5)
bulk = torch.exp(8.0 + 1.0 * torch.randn(12000, generator=gen))
centres = torch.tensor([2500.0, 9000.0, 21000.0, 40000.0, 66000.0])
clus = centres[torch.randint(0, 5, (6000,), generator=gen)] + 300 * torch.randn(6000, generator=gen)
tail = 1e5 * torch.rand(2000, generator=gen)
keys = torch.cat([bulk, clus, tail]).clamp(1, 1e5).round()
keys, _ = torch.sort(keys + torch.rand(N_KEYS, generator=gen) * 1e-3)
pos = torch.arange(N_KEYS, dtype=torch.float32) / N_KEYS
lk = torch.log1p(keys)
x_all = ((lk - lk.mean()) / lk.std()).unsqueeze(1)
y_all = pos.unsqueeze(1)
perm = torch.randperm(N_KEYS, generator=gen)
tr, va = perm[:18000], perm[18000:]
x_tr, y_tr, x_va, y_va = x_all[tr], y_all[tr], x_all[va], y_all[va]


class PosLinear(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.raw = nn.Parameter(torch.randn(o, i) * 0.5 - math.log(i))
        self.bias = nn.Parameter(torch.zeros(o))

    def forward(self, x):
        return x @ F.softplus(self.raw).t() + self.bias


class MonoNet(nn.Module):
    def __init__(self, h=64):
        super().__init__()
        self.l1 = PosLinear(1, h)
        self.l2 = PosLinear(h, h)
        self.out = PosLinear(h, 1)
        with torch.no_grad():
            self.l1.bias.uniform_(-1.0, 1.0)

    def forward(self, x):
        return self.out(F.relu(self.l2(F.relu(self.l1(x)))))


model = MonoNet()
for p in list(model.l1.parameters()) + list(model.l2.parameters()):
    p.requires_grad = False
opt = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "n_train": len(tr), "n_val": len(va)})
t0 = time.time()
gstep = 0
n_b = math.ceil(len(tr) / BATCH)
for ep in range(1, EPOCHS + 1):
    model.train()
    order = torch.randperm(len(tr), generator=gen)
    tot = 0.0
    lr_now = opt.param_groups[0]["lr"]
    for i in range(n_b):
        idx = order[i * BATCH:(i + 1) * BATCH]
        opt.zero_grad()
        loss = F.mse_loss(model(x_tr[idx]), y_tr[idx])
        loss.backward()
        opt.step()
        tot += loss.item() * len(idx)
        gstep += 1
        log_step(ep, i + 1, n_b, loss.item(), opt.param_groups[0]["lr"], gstep, time.time() - t0)
    sched.step()
    model.eval()
    with torch.no_grad():
        pv = model(x_va)
        vl = F.mse_loss(pv, y_va).item()
        err = ((pv - y_va).abs().mean() * N_KEYS).item()
    log_epoch(ep, EPOCHS, {"tl": tot / len(tr), "vl": vl, "vm": err, "lr": lr_now, "el": time.time() - t0})
log_end({"vm": err, "vl": vl, "el": time.time() - t0})
