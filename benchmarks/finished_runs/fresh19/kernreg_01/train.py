"""Deep-kernel regressor without a Gaussian process: a Nadaraya-Watson kernel smoother in a learned embedding space.
Rows have 8 standardised features of which only 3 matter; the target is sin(1.5 x0) + 0.5 x1 x2 + 0.3 x0^2 plus
Gaussian noise (sd 0.1). An MLP (8 -> 64 -> 64 -> 6, ReLU) embeds the rows; each batch of 128 rows is split into 96
support and 32 query rows, a query's prediction is the average of the support targets weighted by an RBF kernel on
the embedding distance with a learned bandwidth, and the loss is the query MSE. Validation predicts 500 held-out rows
from 512 fixed training rows as support; RMSE."""
import math
import sys
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "kernreg"
LR, BATCH, EPOCHS, N_TRAIN, N_SUPPORT = 1e-3, 128, 14, 2048, 96
MET = "rmse"
def log_start(info):
    print(f"Ag tosú ar an traenáil: samhail {info['name']}, {info['n_params']} paraiméadar, méid baisce {info['batch']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    print(f"Ré {ep}/{E}: caillteanas traenála {m['tl']:.4f}, caillteanas bailíochtaithe {m['vl']:.4f}, {MET} bailíochtaithe {m['vm']:.4f}")


def log_end(m):
    print(f"Traenáil críochnaithe i {m['el']:.1f} s. {MET} deiridh: {m['vm']:.4f}")

gen = torch.Generator().manual_seed(23)


def make_rows(n):
    x = torch.randn(n, 8, generator=gen)
    y = torch.sin(1.5 * x[:, 0]) + 0.5 * x[:, 1] * x[:, 2] + 0.3 * x[:, 0] ** 2
    return x, y + 0.1 * torch.randn(n, generator=gen)


x_train, y_train = make_rows(N_TRAIN)
x_val, y_val = make_rows(500)


class DeepKernelSmoother(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 6))
        self.log_bw = nn.Parameter(torch.zeros(()))

    def forward(self, xq, xs, ys):
        zq, zs = self.net(xq), self.net(xs)
        d = torch.cdist(zq, zs).pow(2)
        w = torch.softmax(-d / self.log_bw.exp(), dim=1)
        return w @ ys


model = DeepKernelSmoother()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
steps = N_TRAIN // BATCH
sup_idx = torch.randperm(N_TRAIN, generator=gen)[:512]


def evaluate():
    model.eval()
    with torch.no_grad():
        vl = criterion(model(x_val, x_train[sup_idx], y_train[sup_idx]), y_val).item()
    model.train()
    return vl


n_params = sum(p.numel() for p in model.parameters())
log_start(dict(name=NAME, n_params=n_params, n_train=N_TRAIN, n_val=500, lr=LR, batch=BATCH, epochs=EPOCHS, n_layers=len(list(model.parameters()))))
gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, cnt = 0.0, 0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        s, q = idx[:N_SUPPORT], idx[N_SUPPORT:]
        optimizer.zero_grad()
        loss = criterion(model(x_train[q], x_train[s], y_train[s]), y_train[q])
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item()
        cnt += 1
        log_step(epoch, i + 1, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    tv = time.time()
    vl = evaluate()
    tl = tot / cnt
    et = time.time() - te
    log_epoch(epoch, EPOCHS, dict(tl=tl, tm=math.sqrt(tl) if tl == tl else tl, vl=vl, vm=math.sqrt(vl) if vl == vl else vl,
                                  el=time.time() - t0, et=et, vt=time.time() - tv, lr=optimizer.param_groups[0]["lr"],
                                  gstep=gstep, nb=steps, thr=steps * BATCH / max(et, 1e-9)))
log_end(dict(vm=math.sqrt(vl) if vl == vl else vl, vl=vl, el=time.time() - t0))
