"""Neural additive model (NAM) regressor: y = sum_j f_j(x_j) + noise with 8 features drawn uniform on [-2, 2] and
shape functions sin(2x), x^2/2, |x|, a step at 0.5, exp(x/2)/2, tanh(3x), -x/2 and a bump exp(-4x^2), noise sd 0.1.
One small ReLU MLP per feature (1 -> 32 -> 32 -> 1, all eight evaluated at once with batched weights), outputs summed
plus a bias; MSE, Adam with StepLR (step 5, gamma 0.5). Metric: validation RMSE (lower is better; the noise floor is
0.10)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "nam"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, HIDDEN = 0.003, 128, 15, 3000, 1000, 32
D = 8
MET = "rmse"
HIGHER = False

import datetime as _dt


def _ts():
    return _dt.datetime.now().strftime("%Y-%m-%d %H:%M:%S")


def log_start(info):
    print(f"{_ts()} INFO: Training {info['name']} with {info['n_params']} parameters...")
    print(f"{_ts()} INFO: Loaded {info['n_train']} training rows, {info['n_val']} dev rows")


def log_step(ep, i, n, loss, lr, gstep, el):
    if gstep % 25 == 0:
        print(f"{_ts()} INFO: Finished STEP {gstep}/{n * EPOCHS}, loss = {loss:.6f} ({el / gstep:.3f} sec/batch), lr: {lr:.6f}")


def log_epoch(ep, E, m):
    print(f"{_ts()} INFO: Evaluating on dev set...")
    print(f"{_ts()} INFO: step {m['gstep']}: train_loss = {m['tl']:.6f}, dev_loss = {m['vl']:.6f}, dev_score = {m['vm']:.4f}")


def log_end(m):
    print(f"{_ts()} INFO: Training ended with {m['gstep']} steps.")


gen = torch.Generator().manual_seed(7)


def shapes(x):
    return torch.stack([torch.sin(2 * x[:, 0]), x[:, 1] ** 2 / 2, x[:, 2].abs(), (x[:, 3] > 0.5).float(),
                        torch.exp(x[:, 4] / 2) / 2, torch.tanh(3 * x[:, 5]), -x[:, 6] / 2,
                        torch.exp(-4 * x[:, 7] ** 2)], 1).sum(1)


def make(n):
    x = 4 * torch.rand(n, D, generator=gen) - 2
    y = shapes(x) + 0.1 * torch.randn(n, generator=gen)
    return x, y


x_train, y_train = make(N_TRAIN)
x_val, y_val = make(N_VAL)
y_mean = y_train.mean()


class NAM(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(D, 1, HIDDEN) * math.sqrt(2.0))
        self.b1 = nn.Parameter(torch.zeros(D, HIDDEN))
        self.w2 = nn.Parameter(torch.randn(D, HIDDEN, HIDDEN) * math.sqrt(2.0 / HIDDEN))
        self.b2 = nn.Parameter(torch.zeros(D, HIDDEN))
        self.w3 = nn.Parameter(torch.randn(D, HIDDEN, 1) * math.sqrt(1.0 / HIDDEN))
        self.bias = nn.Parameter(torch.zeros(()))

    def forward(self, x):
        h = F.relu(torch.einsum("nd,dih->ndh", x, self.w1) + self.b1)
        h = F.relu(torch.einsum("ndi,dih->ndh", h, self.w2) + self.b2)
        return torch.einsum("ndi,dio->nd", h, self.w3).sum(1) + self.bias + y_mean


model = NAM()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
steps = math.ceil(N_TRAIN / BATCH)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "batch": BATCH, "lr": LR, "n_train": N_TRAIN, "n_val": N_VAL})
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
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        log_step(ep, i, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    lr_now = optimizer.param_groups[0]["lr"]
    scheduler.step()
    model.eval()
    with torch.no_grad():
        vl = F.mse_loss(model(x_val), y_val).item()
        va = math.sqrt(vl)
    log_epoch(ep, EPOCHS, {"tl": tot / N_TRAIN, "tm": math.sqrt(tot / N_TRAIN), "vl": vl, "vm": va,
                           "lr": lr_now, "el": time.time() - t0, "sec": time.time() - te, "gstep": gstep})
log_end({"el": time.time() - t0, "gstep": gstep, "ep": EPOCHS, "vm": va, "vl": vl, "n_train": N_TRAIN})
