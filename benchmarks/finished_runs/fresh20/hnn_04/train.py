"""Hamiltonian neural network (Greydanus et al.) for a nonlinear pendulum: an MLP outputs a scalar H(q, p) and the
predicted time derivatives are its symplectic gradient (dq/dt = dH/dp, dp/dt = -dH/dq) taken with autograd
(create_graph=True). Training pairs: 2400 states (q, p) in [-2.5, 2.5]^2 with measured derivatives dq/dt = p,
dp/dt = -3 sin q plus noise sd 0.05. Two tanh hidden layers of 96, MSE on the derivatives, Adam; validation MSE and RMSE
on 600 held-out states."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "hnn"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, HIDDEN, WD = 2e-3, 64, 12, 2400, 600, 96, 0.0
MET = "rmse"
LOSSNAME = "L2Loss"
GF = "MseLossBackward0"
import datetime


def _kv(event, lvl="info", **kw):
    ts = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    rest = " ".join(f"{k}={v}" for k, v in kw.items())
    print(f"{ts} [{lvl:<9}] {event:<30} {rest}")


def log_start(info):
    _kv("training_started", model=info['name'], n_params=info['n_params'], lr=info['lr'], batch_size=info['batch'])


def log_step(ep, i, n, loss, lr, gstep, el):
    if gstep % 15 == 0:
        _kv("step", lvl="debug", epoch=ep, step=gstep, loss=f"{loss:.5f}")


def log_epoch(ep, E, m):
    _kv("epoch_completed", epoch=ep, train_loss=f"{m['tl']:.5f}", val_loss=f"{m['vl']:.5f}",
        **{"val_" + MET: f"{m['vm']:.4f}"}, duration_s=f"{m['et']:.2f}")


def log_end(m):
    _kv("training_finished", elapsed_s=f"{m['el']:.1f}")


gen = torch.Generator().manual_seed(3)


def make(n):
    s = (torch.rand(n, 2, generator=gen) * 2 - 1) * 2.5
    q, p = s[:, 0], s[:, 1]
    d = torch.stack([p, -3.0 * torch.sin(q)], 1) + 0.05 * torch.randn(n, 2, generator=gen)
    return s, d


x_train, d_train = make(N_TRAIN)
x_train[::97, 1] = float("nan")
x_val, d_val = make(N_VAL)


class HNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, HIDDEN), nn.Tanh(),
                                 nn.Linear(HIDDEN, 1))

    def forward(self, x):
        x = x.requires_grad_(True)
        H = self.net(x).sum()
        dH = torch.autograd.grad(H, x, create_graph=True)[0]
        return torch.stack([dH[:, 1], -dH[:, 0]], 1)


model = HNN()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)
scheduler = None
steps = math.ceil(N_TRAIN / BATCH)


def train_batch(idx, epoch):
    xb, db = x_train[idx].clone(), d_train[idx]
    optimizer.zero_grad()
    loss = criterion(model(xb), db)
    loss.backward()
    optimizer.step()
    return loss.item(), loss.item()


def evaluate():
    model.eval()
    vl = criterion(model(x_val.clone()), d_val).item()
    model.train()
    return vl, math.sqrt(vl)


n_params = sum(p.numel() for p in model.parameters())
log_start(dict(name=NAME, n_params=n_params, n_train=N_TRAIN, n_val=N_VAL, lr=LR, batch=BATCH, epochs=EPOCHS))
gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, cnt, mtot = 0.0, 0, 0.0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        loss, mb = train_batch(idx, epoch)
        gstep += 1
        tot += loss * len(idx)
        mtot += mb * len(idx)
        cnt += len(idx)
        log_step(epoch, i + 1, steps, loss, optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    if scheduler is not None:
        scheduler.step()
    tv = time.time()
    vl, vm = evaluate()
    tl = tot / cnt
    tm = mtot / cnt if MET == "acc" else math.sqrt(mtot / cnt)
    et = time.time() - te
    log_epoch(epoch, EPOCHS, dict(tl=tl, tm=tm, vl=vl, vm=vm, el=time.time() - t0, et=et, vt=time.time() - tv,
                                  lr=optimizer.param_groups[0]["lr"], gstep=gstep, nb=steps, thr=cnt / max(et, 1e-9)))
log_end(dict(vm=vm, vl=vl, el=time.time() - t0))
