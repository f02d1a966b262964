"""LISTA (learned ISTA, Gregor & LeCun) sparse recovery: x in R^80 with 5 nonzero N(0,1) entries, measurements
y = A x + noise (sd 0.01) with a fixed Gaussian 40x80 matrix A with unit-norm columns. Eight unrolled layers with
shared W (80x40) and S (80x80) initialised from ISTA (W = A^T / L, S = I - A^T A / L) and one learned soft threshold
per layer. MSE on x, Adam with StepLR (step 6, gamma 0.5). Metric: validation NMSE in dB (lower is better)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "lista"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, LAYERS = 0.001, 100, 18, 6000, 1000, 8
MET = "nmse_db"
HIGHER = False

def log_start(info):
    print(f"-- The model is {info['name']} ({info['n_params']} parameters)")
    print(f"-- Training samples: {info['n_train']}, validation samples: {info['n_val']}")
    print("-- Configuring done")


def log_step(ep, i, n, loss, lr, gstep, el):
    if (i + 1) % 20 == 0:
        print(f"-- step {gstep}/{n * EPOCHS} loss {loss:.6f}")


def log_epoch(ep, E, m):
    pct = int(100 * ep / E)
    print(f"[{pct:3d}%] Epoch {ep}/{E}: loss={m['tl']:.6f} val_loss={m['vl']:.6f} val_{MET}={m['vm']:.2f}")


def log_end(m):
    print("[100%] Built target lista")


M, NX, K = 40, 80, 5

gen = torch.Generator().manual_seed(3)
A = torch.randn(M, NX, generator=gen)
A = A / A.norm(dim=0, keepdim=True)
Lip = torch.linalg.matrix_norm(A, 2).item() ** 2


def make(n):
    x = torch.zeros(n, NX)
    idx = torch.argsort(torch.rand(n, NX, generator=gen), 1)[:, :K]
    x.scatter_(1, idx, torch.randn(n, K, generator=gen))
    y = x @ A.T + 0.01 * torch.randn(n, M, generator=gen)
    y[torch.rand(n, M, generator=gen) < 0.001] = float("nan")
    return y, x


y_train, x_train = make(N_TRAIN)
y_val, x_val = make(N_VAL)


def soft(v, th):
    return torch.sign(v) * F.relu(v.abs() - th)


class LISTA(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.W = nn.Parameter(A.T.clone() / Lip)
        self.S = nn.Parameter(torch.eye(NX) - A.T @ A / Lip)
        self.theta = nn.Parameter(torch.full((layers,), 0.1 / Lip))
        self.layers = layers

    def forward(self, y):
        b = y @ self.W.T
        x = soft(b, self.theta[0])
        for t in range(1, self.layers):
            x = soft(b + x @ self.S.T, self.theta[t])
        return x


def nmse_db(xh, x):
    return 10 * math.log10(((xh - x) ** 2).sum().item() / (x ** 2).sum().item())


model = LISTA(LAYERS)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=6, gamma=0.5)
steps = math.ceil(N_TRAIN / BATCH)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "batch": BATCH, "lr": LR, "n_train": N_TRAIN, "n_val": N_VAL})
t0 = time.time()
gstep = 0
for ep in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, err, ref = 0.0, 0.0, 0.0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        xh = model(y_train[idx])
        loss = F.mse_loss(xh, x_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        err += ((xh.detach() - x_train[idx]) ** 2).sum().item()
        ref += (x_train[idx] ** 2).sum().item()
        log_step(ep, i, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    lr_now = optimizer.param_groups[0]["lr"]
    scheduler.step()
    model.eval()
    with torch.no_grad():
        xh = model(y_val)
        vl = F.mse_loss(xh, x_val).item()
        va = nmse_db(xh, x_val)
    tm = 10 * math.log10(err / ref) if err > 0 and err == err and err != float("inf") else float("nan")
    log_epoch(ep, EPOCHS, {"tl": tot / N_TRAIN, "tm": tm, "vl": vl, "vm": va,
                           "lr": lr_now, "el": time.time() - t0, "sec": time.time() - te, "gstep": gstep})
log_end({"el": time.time() - t0, "gstep": gstep, "ep": EPOCHS, "vm": va, "vl": vl, "n_train": N_TRAIN})
