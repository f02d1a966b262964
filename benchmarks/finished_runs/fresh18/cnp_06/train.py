"""Conditional neural process on synthetic 1-D regression tasks: each task is y = a sin(b x + c) + noise (sd 0.1) with
a in [0.5, 2], b in [0.5, 2], c in [0, 2 pi], x in [-2, 2]. 10 context points and 30 target points per task. A
deterministic encoder embeds each (x, y) context pair and averages them into r; a decoder maps (r, x*) to a mean and a
standard deviation (0.05 + 0.95 softplus). Gaussian negative log-likelihood of the targets, Adam with a StepLR
schedule; validation RMSE of the predicted mean on fixed held-out tasks is reported."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "cnp"
LR, BATCH, STEPS, EPOCHS, WD = 1e-3, 32, 40, 15, 1.0
NOISE = 0.1
N_CTX, N_TGT = 10, 30
MET, LOSSNAME, HIGHER = "rmse", "gaussian_nll", False
def log_start(info):
    print(f"Adestrando {info['name']} con {info['n_params']} parámetros ({info['n_train']} exemplos de adestramento)")


def log_step(ep, i, n, loss, lr, gstep, el):
    if i % 20 == 0:
        print(f"  [época {ep}, lote {i}/{n}] perda = {loss:.4f}")


def log_epoch(ep, E, m):
    print(f"Época {ep}/{E} - perda de adestramento: {m['tl']:.4f} - {MET} de adestramento: {m['tm']:.4f} - perda de validación: {m['vl']:.4f} - {MET} de validación: {m['vm']:.4f}")


def log_end(m):
    print(f"Adestramento rematado en {m['el']:.1f} s; {MET} de validación final {m['vm']:.4f}")



def sample_tasks(g, n):
    a = 0.5 + 1.5 * torch.rand(n, 1, generator=g)
    b = 0.5 + 1.5 * torch.rand(n, 1, generator=g)
    c = 2 * math.pi * torch.rand(n, 1, generator=g)
    x = torch.rand(n, N_TGT, generator=g) * 4 - 2
    y = a * torch.sin(b * x + c) + NOISE * torch.randn(n, N_TGT, generator=g)
    return x.unsqueeze(-1), y.unsqueeze(-1)


class CNP(nn.Module):
    def __init__(self, h=128):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(2, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, h))
        self.dec = nn.Sequential(nn.Linear(h + 1, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 2))

    def forward(self, xc, yc, xt):
        r = self.enc(torch.cat([xc, yc], -1)).mean(1, keepdim=True)
        out = self.dec(torch.cat([r.expand(-1, xt.shape[1], -1), xt], -1))
        mu, raw = out[..., :1], out[..., 1:]
        sigma = 0.05 + 0.95 * F.softplus(raw)
        return mu, sigma


def nll(mu, sigma, y):
    return -torch.distributions.Normal(mu, sigma).log_prob(y).mean()


model = CNP()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=6, gamma=0.5)
g_train = torch.Generator().manual_seed(1)
g_val = torch.Generator().manual_seed(99)
val_tasks = [sample_tasks(g_val, 64) for _ in range(4)]
NTR, NVA, NVB = STEPS * BATCH, 4 * 64, 4
n_params = sum(p.numel() for p in model.parameters())
log_start(dict(name=NAME, n_params=n_params, n_train=STEPS * BATCH, n_val=NVA, lr=LR, batch=BATCH, epochs=EPOCHS,
               n_layers=10))

gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    tot_loss, tot_se = 0.0, 0.0
    for i in range(STEPS):
        x, y = sample_tasks(g_train, BATCH)
        mu, sigma = model(x[:, :N_CTX], y[:, :N_CTX], x)
        loss = nll(mu, sigma, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot_loss += loss.item()
        tot_se += ((mu.detach() - y) ** 2).mean().item()
        log_step(epoch, i + 1, STEPS, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    scheduler.step()
    model.eval()
    vl, vse = 0.0, 0.0
    with torch.no_grad():
        for x, y in val_tasks:
            mu, sigma = model(x[:, :N_CTX], y[:, :N_CTX], x)
            vl += nll(mu, sigma, y).item()
            vse += ((mu - y) ** 2).mean().item()
    m = dict(tl=tot_loss / STEPS, tm=math.sqrt(tot_se / STEPS), vl=vl / len(val_tasks), vm=math.sqrt(vse / len(val_tasks)),
             lr=optimizer.param_groups[0]["lr"], el=time.time() - t0, gstep=gstep, ep_s=time.time() - te)
    log_epoch(epoch, EPOCHS, m)
log_end(m)
