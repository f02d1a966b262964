"""FastKAN-style Kolmogorov-Arnold network regressor on synthetic data: 4 sensor readings (raw units, roughly 100 +- 50)
and a smooth target f = exp(sin(pi x1) + x2^2) / 2 + x3 * x4 + Gaussian noise (sd 0.05), where x are the readings
rescaled to [-1, 1]. Each KAN layer expands every input with 8 Gaussian radial basis functions on a fixed grid over
[-2, 2] and mixes them linearly, plus a SiLU base branch; layers 4 -> 16 -> 1. MSE loss, Adam; RMSE is reported."""
import math
import sys
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
LR, BATCH, EPOCHS, N_TRAIN = 0.01, 64, 15, 2000
MET = "rmse"


def log_start(n_params, n_tr, n_va, lr, batch, epochs):
    print(f"Modelio parametrų: {n_params}; mokymo pavyzdžių: {n_tr}; validavimo pavyzdžių: {n_va}")
    print(f"Mokymosi greitis {lr}, paketo dydis {batch}, epochų {epochs}")


def log_step(epoch, i, n, loss, lr, gstep, el):
    if gstep % 16 == 0:
        print(f"    žingsnis {gstep}: nuostolis {loss:.4f}")


def log_epoch(epoch, epochs, tl, tm, vl, vm, lr, gstep, el):
    print(f"Epocha {epoch:2d}/{epochs} | mokymo nuostolis {tl:.4f} | mokymo {MET} {tm:.4f} | "
          f"validavimo nuostolis {vl:.4f} | validavimo {MET} {vm:.4f}")


def log_end(vm, el):
    print(f"Mokymas baigtas per {el:.1f} s. Galutinis validavimo {MET}: {vm:.4f}")
gen = torch.Generator().manual_seed(7)


def make_data(n):
    u = torch.rand(n, 4, generator=gen) * 2 - 1
    y = torch.exp(torch.sin(math.pi * u[:, 0]) + u[:, 1] ** 2) / 2 + u[:, 2] * u[:, 3]
    y = y + 0.05 * torch.randn(n, generator=gen)
    raw = 100 + 50 * u
    return raw, y.unsqueeze(1)


x_train, y_train = make_data(N_TRAIN)
x_val, y_val = make_data(500)


class KANLayer(nn.Module):
    def __init__(self, d_in, d_out, n_grid=8):
        super().__init__()
        self.register_buffer("grid", torch.linspace(-2, 2, n_grid))
        self.h = 4.0 / (n_grid - 1)
        self.spline = nn.Linear(d_in * n_grid, d_out, bias=False)
        nn.init.normal_(self.spline.weight, std=0.1)
        self.base = nn.Linear(d_in, d_out)

    def forward(self, x):
        z = x
        phi = torch.exp(-((z.unsqueeze(-1) - self.grid) / self.h) ** 2)
        return self.spline(phi.flatten(1)) + self.base(nn.functional.silu(x))


model = nn.Sequential(KANLayer(4, 16), KANLayer(16, 1))
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
n_params = sum(p.numel() for p in model.parameters())
steps = (len(x_train) + BATCH - 1) // BATCH
log_start(n_params, len(x_train), len(x_val), LR, BATCH, EPOCHS)

gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    order = torch.randperm(len(x_train))
    tot_loss = 0.0
    for i in range(steps):
        idx = order[i * BATCH:(i + 1) * BATCH]
        xb, yb = x_train[idx], y_train[idx]
        optimizer.zero_grad()
        pred = model(xb)
        loss = criterion(pred, yb)
        loss.backward()
        optimizer.step()
        gstep += 1
        tot_loss += loss.item() * len(idx)
        log_step(epoch, i + 1, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        val_loss = criterion(model(x_val), y_val).item()
    tl = tot_loss / len(x_train)
    log_epoch(epoch, EPOCHS, tl, math.sqrt(tl), val_loss, math.sqrt(val_loss),
              optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
log_end(math.sqrt(val_loss), time.time() - t0)
