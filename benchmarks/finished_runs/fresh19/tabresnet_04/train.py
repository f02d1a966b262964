"""Residual MLP regressor on synthetic tabular data: 10 sensor/customer-style features in raw units (ages, incomes,
temperatures, counts...) standardised with the training-set mean and std before use; the target is a smooth
nonlinear function of the standardised features plus Gaussian noise (sd 0.15), itself standardised. A linear stem to
64 units, three pre-activation residual blocks (LayerNorm, ReLU, Linear, Dropout, Linear) and a linear head; MSE loss,
Adam; validation MSE and RMSE on 600 held-out rows."""
import math
import sys
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "tabresnet"
LR, BATCH, EPOCHS, N_TRAIN, WIDTH, DROPOUT, WD = 1e-3, 64, 15, 2400, 64, 0.1, 0.0
MET = "rmse"
def log_start(info):
    print(f"பயிற்சி தொடங்குகிறது: மாதிரி {info['name']}, அளவுருக்கள் {info['n_params']}, தொகுதி அளவு {info['batch']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    print(f"சுழற்சி {ep}/{E}: பயிற்சி இழப்பு={m['tl']:.4f}, சரிபார்ப்பு இழப்பு={m['vl']:.4f}, சரிபார்ப்பு {MET}={m['vm']:.4f}")


def log_end(m):
    print(f"பயிற்சி முடிந்தது. நேரம் {m['el']:.1f} வினாடி, இறுதி {MET} {m['vm']:.4f}")

gen = torch.Generator().manual_seed(7)
SCALES = torch.tensor([12.0, 18000.0, 7.5, 3.0, 250.0, 0.8, 40.0, 1.5, 900.0, 5.0])
OFFSETS = torch.tensor([41.0, 52000.0, 18.0, 2.0, 1200.0, 0.1, 150.0, 0.0, 3000.0, 10.0])
W_TRUE = torch.randn(10, generator=gen)


def make_rows(n):
    z = torch.randn(n, 10, generator=gen)
    y = (z @ W_TRUE) / 3 + torch.sin(2 * z[:, 0]) * z[:, 1] + 0.5 * z[:, 2] ** 2 - 0.7 * torch.tanh(z[:, 3] * z[:, 4])
    y = y + 0.15 * torch.randn(n, generator=gen)
    return z * SCALES + OFFSETS, y


x_train_raw, y_train_raw = make_rows(N_TRAIN)
x_val_raw, y_val_raw = make_rows(600)
mu, sd = x_train_raw.mean(0), x_train_raw.std(0)
x_train = (x_train_raw - mu) / sd
x_val = (x_val_raw - mu) / sd
ym, ys = y_train_raw.mean(), y_train_raw.std()
y_train, y_val = (y_train_raw - ym) / ys, (y_val_raw - ym) / ys


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 2 * d)
        self.drop = nn.Dropout(DROPOUT)
        self.fc2 = nn.Linear(2 * d, d)

    def forward(self, x):
        return x + self.fc2(self.drop(torch.relu(self.fc1(self.norm(x)))))


class ResMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(10, WIDTH)
        self.blocks = nn.Sequential(Block(WIDTH), Block(WIDTH), Block(WIDTH))
        self.head = nn.Sequential(nn.LayerNorm(WIDTH), nn.Linear(WIDTH, 1))

    def forward(self, x):
        return self.head(self.blocks(self.stem(x))).squeeze(-1)


model = ResMLP()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)
scheduler = None
steps = math.ceil(N_TRAIN / BATCH)


def evaluate():
    model.eval()
    with torch.no_grad():
        vl = criterion(model(x_val), y_val).item()
    model.train()
    return vl


n_params = sum(p.numel() for p in model.parameters())
log_start(dict(name=NAME, n_params=n_params, n_train=N_TRAIN, n_val=600, lr=LR, batch=BATCH, epochs=EPOCHS, n_layers=len(list(model.parameters()))))
gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, cnt = 0.0, 0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        xb, yb = x_train[idx], y_train[idx]
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        cnt += len(idx)
        log_step(epoch, i + 1, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    if scheduler is not None:
        scheduler.step()
    tv = time.time()
    vl = evaluate()
    tl = tot / cnt
    et = time.time() - te
    log_epoch(epoch, EPOCHS, dict(tl=tl, tm=math.sqrt(tl), vl=vl, vm=math.sqrt(vl), el=time.time() - t0, et=et,
                                  vt=time.time() - tv, lr=optimizer.param_groups[0]["lr"], gstep=gstep, nb=steps,
                                  thr=cnt / max(et, 1e-9)))
log_end(dict(vm=math.sqrt(vl), vl=vl, el=time.time() - t0))
