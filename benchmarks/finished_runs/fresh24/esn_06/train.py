"""Echo state network (reservoir computing) forecaster: a Mackey-Glass series (tau 17, Euler step 1) recorded as
raw sensor counts (1000 * x + 200) with measurement noise, target the value 6 steps ahead. A fixed random reservoir
of 150 tanh units (10% connectivity, spectral radius RHO, leak 0.5, input weights uniform +-0.5) is run once over the
series (100 washout steps dropped); only a readout MLP (150 -> 64 -> 1, ReLU) is trained, with SGD and momentum 0.9
on the MSE of the standardised target. Metric: validation NRMSE (RMSE / target sd, lower is better)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "esn"
LR, BATCH, EPOCHS, RHO, HORIZON = 0.05, 64, 12, 0.9, 6
N_RES = 150

def log_start(info):
    print(f"Model {info['name']}: {info['n_params']} parameters, {info['n_train']} trainingsfoarbylden")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    print(f"Tiidrek {ep} fan {E}: trainingsferlies {m['tl']:.5f}; falidaasjeferlies {m['vl']:.5f}; falidaasje-NRMSE {m['vm']:.4f}")


def log_end(m):
    print(f"Klear nei {m['el']:.1f} sekonden. Lêste NRMSE: {m['vm']:.4f}")


def mackey_glass(n, tau=17, beta=0.2, gamma=0.1, p=10, x0=1.2):
    hist = [x0] * (tau + 1)
    for _ in range(n + 300):
        xt, xd = hist[-1], hist[-1 - tau]
        hist.append(xt + beta * xd / (1 + xd ** p) - gamma * xt)
    return torch.tensor(hist[-n:])


gen = torch.Generator().manual_seed(7)
T = 5200
raw = 1000 * mackey_glass(T) + 200 + 15 * torch.randn(T, generator=gen)
n_fit = 4200
mu, sd = raw[:n_fit].mean(), raw[:n_fit].std()
u = (raw - mu) / sd
target = (raw - mu) / sd

W_in = (torch.rand(N_RES, generator=gen) - 0.5)
W = torch.randn(N_RES, N_RES, generator=gen) * (torch.rand(N_RES, N_RES, generator=gen) < 0.1)
W = W * (RHO / torch.linalg.eigvals(W).abs().max())
states = torch.zeros(T, N_RES)
h = torch.zeros(N_RES)
for t in range(T):
    h = 0.5 * h + 0.5 * torch.tanh(W_in * u[t] + W @ h)
    states[t] = h
X = states[100:T - HORIZON]
Y = target[100 + HORIZON:T].unsqueeze(1)
split = n_fit - 100
x_train, y_train = X[:split], Y[:split]
x_val, y_val = X[split:], Y[split:]
N_TRAIN, N_VAL = len(x_train), len(x_val)

model = nn.Sequential(nn.Linear(N_RES, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
steps = math.ceil(N_TRAIN / BATCH)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "batch": BATCH, "lr": LR, "n_train": N_TRAIN, "n_val": N_VAL, "epochs": EPOCHS})
t0 = time.time()
gstep = 0
for ep in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot = 0.0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        pred = model(x_train[idx])
        loss = F.mse_loss(pred, y_train[idx])
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        log_step(ep, i, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        pv = model(x_val)
        vl = F.mse_loss(pv, y_val).item()
        vm = math.sqrt(vl) / y_val.std().item()
    tl = tot / N_TRAIN
    log_epoch(ep, EPOCHS, {"tl": tl, "tm": math.sqrt(tl) / y_train.std().item() if tl == tl else float("nan"), "vl": vl, "vm": vm,
                           "lr": optimizer.param_groups[0]["lr"], "el": time.time() - t0, "sec": time.time() - te, "gstep": gstep})
log_end({"el": time.time() - t0, "gstep": gstep, "ep": EPOCHS, "vm": vm, "vl": vl, "n_train": N_TRAIN})
