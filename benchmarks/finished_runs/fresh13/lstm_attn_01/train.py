"""LSTM encoder with additive attention for multi-step forecasting. A synthetic hourly load series (daily and
weekly cycles, a slow trend, an exogenous temperature covariate and AR(1) noise) is cut into windows of 48
past hours (load, temperature, hour-of-day phase) to predict the next 12 hours of load. The decoder reads the
last hidden state and an attention context over all encoder states. Scores: MSE on standardised load and
MAE in original units (MW)."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
import yaml
with open("config.yaml") as _f:
    CFG = yaml.safe_load(_f)
_SCALE = 3600.0


def log_info(msg):
    print(f"[job 48213] {msg}")


def progress(it, epoch, n_epochs, n):
    return it


def _hms(s):
    s = int(s)
    return f"{s // 3600:d}h{s % 3600 // 60:02d}m{s % 60:02d}s"


def on_step(epoch, n_epochs, i, n, loss, lr, gstep, total):
    if gstep % 40 == 0:
        el = gstep * 0.0093 * _SCALE
        print(f"[job 48213] iter {gstep:>6d}/{total}  loss {loss:.4f}  lr {lr:.2e}  elapsed {_hms(el)}  eta {_hms(el / gstep * (total - gstep))}")


def log_epoch(epoch, n_epochs, m, lr):
    m.pop("_steps", None)
    print(f"[job 48213] === epoch {epoch}/{n_epochs} done === " + "  ".join(f"{k} {v:.4f}" for k, v in m.items()))


def log_end(summary):
    print(f"[job 48213] finished: {summary}")

T_IN, T_OUT = 48, 12


def make_series(n_hours, gen):
    t = torch.arange(n_hours, dtype=torch.float32)
    temp = 15 + 8 * torch.sin(2 * math.pi * (t - 9) / 24) + 3 * torch.randn(n_hours, generator=gen).cumsum(0) / 40
    ar = torch.zeros(n_hours)
    eps = torch.randn(n_hours, generator=gen)
    for i in range(1, n_hours):
        ar[i] = 0.8 * ar[i - 1] + 0.35 * eps[i]
    load = (500 + 0.02 * t + 80 * torch.sin(2 * math.pi * (t - 6) / 24) + 40 * torch.sin(2 * math.pi * t / 168)
            + 4.0 * (temp - 15).clamp(min=0) ** 1.3 + 12 * ar)
    phase = torch.sin(2 * math.pi * t / 24)
    return load, temp, phase


gen = torch.Generator().manual_seed(11)
load, temp, phase = make_series(CFG["n_hours"], gen)
split = int(0.8 * CFG["n_hours"])
mu_l, sd_l = load[:split].mean(), load[:split].std()
mu_t, sd_t = temp[:split].mean(), temp[:split].std()
feats = torch.stack([(load - mu_l) / sd_l, (temp - mu_t) / sd_t, phase], 1)
target = (load - mu_l) / sd_l


def windows(lo, hi, stride):
    xs, ys = [], []
    for s in range(lo, hi - T_IN - T_OUT, stride):
        xs.append(feats[s:s + T_IN])
        ys.append(target[s + T_IN:s + T_IN + T_OUT])
    return torch.stack(xs), torch.stack(ys)


x_train, y_train = windows(0, split, 2)
x_val, y_val = windows(split, CFG["n_hours"], 6)

class AttnForecaster(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.lstm = nn.LSTM(3, hidden, batch_first=True)
        self.w_enc = nn.Linear(hidden, hidden, bias=False)
        self.w_dec = nn.Linear(hidden, hidden)
        self.v = nn.Linear(hidden, 1, bias=False)
        self.out = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.Tanh(), nn.Linear(hidden, T_OUT))

    def forward(self, x):
        enc, (h, _) = self.lstm(x)
        q = h[-1]
        scores = self.v(torch.tanh(self.w_enc(enc) + self.w_dec(q).unsqueeze(1))).squeeze(-1)
        attn = scores.softmax(-1)
        ctx = (attn.unsqueeze(-1) * enc).sum(1)
        return self.out(torch.cat([q, ctx], -1))


model = AttnForecaster(CFG["hidden"])
optimizer = torch.optim.SGD(model.parameters(), lr=CFG["lr"], momentum=0.9, nesterov=True)
n_train = len(x_train)
n_batches = math.ceil(n_train / CFG["batch_size"])
total = n_batches * CFG["epochs"]
warmup_steps = CFG['warmup_steps']
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: (s + 1) / warmup_steps if s < warmup_steps else 0.5 * (1 + math.cos(math.pi * (s - warmup_steps) / (total - warmup_steps))))
log_info(f"LSTM-attention forecaster: {n_train} train / {len(x_val)} val windows ({T_IN}h -> {T_OUT}h), "
         f"{sum(p.numel() for p in model.parameters())} params, batch {CFG['batch_size']}, lr {CFG['lr']}, {CFG['epochs']} epochs")


def evaluate():
    model.eval()
    with torch.no_grad():
        pred = model(x_val)
        mse = F.mse_loss(pred, y_val).item()
        mae = ((pred - y_val).abs() * sd_l).mean().item()
    return mse, mae


t0 = time.time()
gstep = 0
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    perm = torch.randperm(n_train)
    tot = 0.0
    for i in progress(range(n_batches), epoch, CFG["epochs"], n_batches):
        idx = perm[i * CFG["batch_size"]:(i + 1) * CFG["batch_size"]]
        pred = model(x_train[idx])
        loss = F.mse_loss(pred, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CFG["clip"])
        optimizer.step()
        scheduler.step()
        gstep += 1
        tot += loss.item() * len(idx)
        on_step(epoch, CFG["epochs"], i, n_batches, loss.item(), optimizer.param_groups[0]["lr"], gstep, total)
    val_mse, val_mae = evaluate()
    log_epoch(epoch, CFG["epochs"], {"_steps": n_batches, "train_loss": tot / n_train, "val_loss": val_mse, "val_mae": val_mae},
              optimizer.param_groups[0]["lr"])

log_end(f"{CFG['epochs']} epochs in {time.time() - t0:.1f}s, final val_mae={val_mae:.2f} MW")
