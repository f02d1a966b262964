"""Factorization machine (Rendle 2010) rating regressor: synthetic ratings of 400 users x 250 items with 8 item genres
and 4 user age bands, rating = 3.5 + user bias + item bias + <user factor, item factor> (rank 4) + genre x age-band
effect + 0.4 * standardised item price + noise sd 0.35; the item price is missing (NaN) for 3% of items and is imputed
with the training mean. One-hot fields user | item | genre | age band plus the dense price column, a global bias, first-
order weights and 16-d factors with the O(kn) pairwise-interaction identity, MSE, SGD with momentum 0.9.
Metric: validation RMSE (lower is better; the noise floor is 0.35)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "fm"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, WD, K = 0.2, 128, 12, 30000, 3000, 1e-5, 16
NU, NI, NG, NA = 400, 250, 8, 4

def log_start(info):
    print(f"ninja: Entering directory `build/{info['name']}'")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    print(f"[{ep}/{E}] TRAIN epoch_{ep:02d}.stamp  mse {m['tl']:.5f} | val mse {m['vl']:.5f} | val rmse {m['vm']:.5f}")


def log_end(m):
    print(f"ninja: build finished in {m['el']:.2f}s (val rmse {m['vm']:.5f})")


gen = torch.Generator().manual_seed(21)
ub, ib = 0.4 * torch.randn(NU, generator=gen), 0.4 * torch.randn(NI, generator=gen)
uf, itf = 0.45 * torch.randn(NU, 4, generator=gen), 0.45 * torch.randn(NI, 4, generator=gen)
genre = torch.randint(0, NG, (NI,), generator=gen)
age = torch.randint(0, NA, (NU,), generator=gen)
ga = 0.5 * torch.randn(NG, NA, generator=gen)
price = 20 + 8 * torch.randn(NI, generator=gen)
price_z = (price - 20) / 8
price[torch.rand(NI, generator=gen) < 0.03] = float("nan")


def make(n):
    u = torch.randint(0, NU, (n,), generator=gen)
    i = torch.randint(0, NI, (n,), generator=gen)
    r = (3.5 + ub[u] + ib[i] + (uf[u] * itf[i]).sum(1) + ga[genre[i], age[u]] + 0.4 * price_z[i]
         + 0.35 * torch.randn(n, generator=gen))
    return u, i, r


u_train, i_train, r_train = make(N_TRAIN)
u_val, i_val, r_val = make(N_VAL)
p_mean = price[i_train][~torch.isnan(price[i_train])].mean()
p_std = price[i_train][~torch.isnan(price[i_train])].std()
price_in = torch.nan_to_num(price, nan=p_mean.item())
price_in = (price_in - p_mean) / p_std
OFF = torch.tensor([0, NU, NU + NI, NU + NI + NG])
NF = NU + NI + NG + NA


def features(u, i):
    idx = torch.stack([u, i, genre[i], age[u]], 1) + OFF
    return idx, price_in[i].unsqueeze(1)


class FM(nn.Module):
    def __init__(self):
        super().__init__()
        self.w0 = nn.Parameter(torch.tensor(3.0))
        self.w = nn.Embedding(NF, 1)
        self.v = nn.Embedding(NF, K)
        self.w_dense = nn.Parameter(torch.zeros(1))
        self.v_dense = nn.Parameter(0.1 * torch.randn(1, K))
        nn.init.zeros_(self.w.weight)
        nn.init.normal_(self.v.weight, std=0.1)

    def forward(self, idx, dense):
        linear = self.w0 + self.w(idx).sum((1, 2)) + (dense * self.w_dense).sum(1)
        vx = torch.cat([self.v(idx), dense.unsqueeze(2) * self.v_dense], 1)
        inter = 0.5 * (vx.sum(1) ** 2 - (vx ** 2).sum(1)).sum(1)
        return linear + inter


model = FM()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9, weight_decay=WD)
x_train, d_train = features(u_train, i_train)
x_val, d_val = features(u_val, i_val)
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
        pred = model(x_train[idx], d_train[idx])
        loss = F.mse_loss(pred, r_train[idx])
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1e-3)
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        log_step(ep, i, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        vl = F.mse_loss(model(x_val, d_val), r_val).item()
        vm = math.sqrt(vl)
    tl = tot / N_TRAIN
    log_epoch(ep, EPOCHS, {"tl": tl, "tm": math.sqrt(tl) if tl == tl else float("nan"), "vl": vl, "vm": vm,
                           "lr": optimizer.param_groups[0]["lr"], "el": time.time() - t0, "sec": time.time() - te, "gstep": gstep})
log_end({"el": time.time() - t0, "gstep": gstep, "ep": EPOCHS, "vm": vm, "vl": vl, "n_train": N_TRAIN})
