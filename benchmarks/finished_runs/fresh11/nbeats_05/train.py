"""N-BEATS (generic architecture) forecaster on synthetic monthly-style series. Each series has its own level
(50 to 5000 units), a linear trend, a 12-step seasonal pattern whose amplitude scales with the level, and
multiplicative noise. Windows of 48 past steps predict the next 12; each window is divided by the mean of its
lookback before it enters the network (the usual per-window scaling), and forecasts are rescaled for the metrics.
Blocks are fully-connected ReLU stacks emitting a backcast (subtracted from the block input, doubly residual) and
a partial forecast (summed). The last 12 steps of every series are held out for validation; the loss is MAE on the
scaled targets and validation reports sMAPE (%) on the original scale."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_num_threads(1)
CFG = dict(epochs=30, batch_size=64, lr=0.002, weight_decay=0.0, n_blocks=4, width=128, n_layers=3,
           n_series=240, series_len=120, stride=4)

def log_info(msg):
    print(msg)


def progress(it, epoch, n_epochs, n):
    return it


def on_step(epoch, n_epochs, i, n, loss, lr, gstep, total):
    pass


def log_epoch(epoch, n_epochs, m, lr):
    print(f"epoch={epoch} " + " ".join(f"{k}={v:.5f}" for k, v in m.items()) + f" lr={lr:.3g}")


def log_end(summary):
    print("done " + " ".join(f"{k}={v}" for k, v in summary.items()))

LOOKBACK, HORIZON = 48, 12


def make_series(n, length, g):
    t = torch.arange(length, dtype=torch.float32)
    level = torch.exp(torch.empty(n, 1).uniform_(math.log(50), math.log(5000), generator=g))
    slope = torch.empty(n, 1).uniform_(-0.004, 0.008, generator=g)
    amp = torch.empty(n, 1).uniform_(0.05, 0.3, generator=g)
    phase = torch.empty(n, 1).uniform_(0, 2 * math.pi, generator=g)
    season = amp * torch.sin(2 * math.pi * t / 12 + phase) + 0.5 * amp * torch.sin(4 * math.pi * t / 12 + 2 * phase)
    noise = 0.04 * torch.randn(n, length, generator=g)
    return level * (1 + slope * t) * (1 + season) * (1 + noise)


def windows(series, stride):
    xs, ys = [], []
    L = series.shape[1]
    for s in range(0, L - LOOKBACK - HORIZON + 1, stride):
        xs.append(series[:, s:s + LOOKBACK])
        ys.append(series[:, s + LOOKBACK:s + LOOKBACK + HORIZON])
    return torch.cat(xs), torch.cat(ys)


def scale_of(x):
    return x.mean(1, keepdim=True)


class Block(nn.Module):
    def __init__(self, width, n_layers):
        super().__init__()
        layers, d = [], LOOKBACK
        for _ in range(n_layers):
            layers += [nn.Linear(d, width), nn.ReLU()]
            d = width
        self.fc = nn.Sequential(*layers)
        self.theta_b = nn.Linear(width, LOOKBACK)
        self.theta_f = nn.Linear(width, HORIZON)

    def forward(self, x):
        h = self.fc(x)
        return self.theta_b(h), self.theta_f(h)


class NBeats(nn.Module):
    def __init__(self, n_blocks, width, n_layers):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, n_layers) for _ in range(n_blocks)])

    def forward(self, x):
        resid, forecast = x, 0.0
        for b in self.blocks:
            back, fore = b(resid)
            resid = resid - back
            forecast = forecast + fore
        return forecast


def smape(pred, y):
    return (200.0 * (pred - y).abs() / (pred.abs() + y.abs() + 1e-8)).mean().item()


g = torch.Generator().manual_seed(1)
series = make_series(CFG["n_series"], CFG["series_len"], g)
train_part, val_part = series[:, :-HORIZON], series[:, -(LOOKBACK + HORIZON):]
x_train, y_train = windows(train_part, CFG["stride"])
x_val, y_val = val_part[:, :LOOKBACK], val_part[:, LOOKBACK:]
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=CFG["batch_size"], shuffle=True)
_N_UPD, _BS = len(train_loader), CFG["batch_size"]

model = NBeats(CFG["n_blocks"], CFG["width"], CFG["n_layers"])
for blk in model.blocks:
    blk.fc.requires_grad_(False)
    blk.theta_f.requires_grad_(False)
optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"], weight_decay=CFG["weight_decay"])
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=2)
total_steps = CFG["epochs"] * len(train_loader)
log_info(f"N-BEATS generic: {CFG['n_blocks']} blocks x {CFG['n_layers']} FC({CFG['width']}) | "
         f"{sum(p.numel() for p in model.parameters())} params | {CFG['n_series']} series, train windows {len(x_train)}, "
         f"val windows {len(x_val)} | lookback {LOOKBACK} horizon {HORIZON}")


def evaluate():
    model.eval()
    with torch.no_grad():
        s = scale_of(x_val)
        pred_s = model(x_val / s)
        loss = F.l1_loss(pred_s, y_val / s).item()
        pred = pred_s * s
        mae = (pred - y_val).abs().mean().item()
    return loss, smape(pred, y_val), mae


t_start = time.time()
gstep = 0
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    tot, n = 0.0, 0
    bar = progress(train_loader, epoch, CFG["epochs"], len(train_loader))
    for i, (xb, yb) in enumerate(bar):
        s = scale_of(xb)
        optimizer.zero_grad()
        pred = model(xb / s)
        loss = F.l1_loss(pred, yb / s)
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(xb)
        n += len(xb)
        on_step(epoch, CFG["epochs"], i, len(train_loader), loss.item(), optimizer.param_groups[0]["lr"], gstep, total_steps)
    val_loss, val_smape, val_mae = evaluate()
    scheduler.step(val_loss)
    log_epoch(epoch, CFG["epochs"], {"loss": tot / n, "val_loss": val_loss, "val_smape": val_smape, "val_mae": val_mae},
              optimizer.param_groups[0]["lr"])

log_end({"final_val_smape": round(val_smape, 3), "final_val_loss": round(val_loss, 5), "time_s": round(time.time() - t_start, 1)})
