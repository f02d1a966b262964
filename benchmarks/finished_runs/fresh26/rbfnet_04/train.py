"""Radial basis function network regressing a synthetic plant-efficiency target from six sensor readings in
their raw units (temperature ~20 C sd 8, pressure ~1013 hPa sd 15, humidity 0-100 %, shaft speed ~3000 rpm sd 800,
supply voltage ~230 V sd 5, flow ~0.5 l/s sd 0.2). The target is a smooth nonlinear function of the standardised
readings plus noise sd 0.15 (target sd about 1). Inputs are standardised with the training statistics when NORMALIZE
is set. Model: 96 Gaussian RBF units whose centres start at random training points and move during training, one
learned width per unit (gamma = exp(log_gamma)), a linear output layer plus a linear skip from the
inputs. Adam, MSE, validation RMSE (predicting the training mean gives about 1.0)."""
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
NAME = "rbfnet"
MET = "val_rmse"
LR, WEIGHT_DECAY, BATCH, EPOCHS = 1e-5, 0.0, 32, 15
N_TRAIN, N_VAL, NF, UNITS = 4000, 1000, 6, 96
NORMALIZE = True
LOG_EVERY = 25

import datetime as _dt


def _l(level, msg):
    t = _dt.datetime.now().strftime("%m-%d %H:%M:%S.%f")[:-3]
    print(f"{t}  4242  4261 {level} RbfTrainer: {msg}")


def log_start(info):
    _l("I", f"model={info['name']} params={info['n_params']} train={info['n_train']}")


def log_step(ep, i, n, loss):
    _l("D", f"ep={ep} step={i}/{n} loss={loss:.5f}")


def log_epoch(ep, E, m):
    _l("I", f"epoch {ep}/{E} train_loss={m['tl']:.5f} val_loss={m['vl']:.5f} val_rmse={m['vm']:.5f}")


def log_end(m):
    _l("I", f"training done, val_rmse={m['vm']:.5f}")


def run_epochs(model, opt, train_batches, evaluate, step_fn, n_train, n_val):
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"name": NAME, "n_params": n_params, "n_train": n_train, "n_val": n_val})
    t_start = time.time()
    best = None
    prev_vl = None
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb = 0.0, 0
        batches = list(train_batches())
        for i, batch in enumerate(batches, 1):
            loss = step_fn(batch)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, len(batches), loss)
        model.eval()
        with torch.no_grad():
            vl, vm = evaluate()
        if best is None or (vm > best if MET == "val_acc" else vm < best):
            best = vm
        m = {"tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb}
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
    m["el"] = time.time() - t_start
    log_end(m)

gen = torch.Generator().manual_seed(2)
means = torch.tensor([20.0, 1013.0, 50.0, 3000.0, 230.0, 0.5])
sds = torch.tensor([8.0, 15.0, 25.0, 800.0, 5.0, 0.2])
z_all = torch.randn(N_TRAIN + N_VAL, NF, generator=gen)
z_all[:, 2] = torch.rand(N_TRAIN + N_VAL, generator=gen) * 3.4 - 1.7
raw = means + sds * z_all
target = (torch.sin(1.5 * z_all[:, 0]) + 0.5 * z_all[:, 1] * z_all[:, 2] + torch.exp(-z_all[:, 3] ** 2)
          + 0.3 * z_all[:, 4] - 0.25 * z_all[:, 5] ** 2)
target = target + 0.15 * torch.randn(N_TRAIN + N_VAL, generator=gen)
target = ((target - target[:N_TRAIN].mean()) / target[:N_TRAIN].std()).unsqueeze(1)
x_train, y_train = raw[:N_TRAIN], target[:N_TRAIN]
x_val, y_val = raw[N_TRAIN:], target[N_TRAIN:]
if NORMALIZE:
    mu, sd = x_train.mean(0), x_train.std(0)
    x_train, x_val = (x_train - mu) / sd, (x_val - mu) / sd


class RBFNet(nn.Module):
    def __init__(self, init_centres, units=UNITS, nf=NF):
        super().__init__()
        self.centres = nn.Parameter(init_centres.clone())
        self.log_gamma = nn.Parameter(torch.full((units,), math.log(0.25)))
        self.out = nn.Linear(units, 1)
        self.skip = nn.Linear(nf, 1, bias=False)

    def forward(self, x):
        d2 = torch.cdist(x, self.centres) ** 2
        phi = torch.exp(-self.log_gamma.exp() * d2)
        return self.out(phi) + self.skip(x)


model = RBFNet(x_train[torch.randperm(N_TRAIN, generator=gen)[:UNITS]])
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


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
