# TSMixer (Chen et al., "TSMixer: An All-MLP Architecture for Time Series Forecasting", TMLR 2023), a PyTorch port of
# the basic model in google-research/tsmixer (tsmixer_basic/models/tsmixer.py): residual blocks that alternate a
# time-mixing MLP (shared across channels) and a feature-mixing MLP (shared across time steps), BatchNorm, dropout,
# and a temporal projection from the 96-step lookback to a 24-step horizon; MSE loss, Adam, printed like Keras fit.
# Data: a synthetic 7-channel hourly sensor series (daily and weekly cycles, cross-channel lags, trend, noise).
import time

import numpy as np
import torch
import torch.nn as nn

SEED = 13
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)

N_STEPS, N_CH = 5000, 7
SEQ_LEN, PRED_LEN = 96, 24
N_BLOCK, FF_DIM = 2, 32
DROPOUT = 0.1
LR = 1e-3
BATCH_SIZE = 32
EPOCHS = 10
STRIDE = 3

rng = np.random.RandomState(SEED)
t = np.arange(N_STEPS)
base = np.sin(2 * np.pi * t / 24) + 0.5 * np.sin(2 * np.pi * t / 168)
raw = np.zeros((N_STEPS, N_CH))
for c in range(N_CH):
    lag = rng.randint(0, 12)
    raw[:, c] = (rng.uniform(0.5, 1.5) * np.roll(base, lag) + rng.uniform(-0.3, 0.3) * np.sin(2 * np.pi * t / 12 + c)
                 + 0.0002 * c * t + rng.randn(N_STEPS) * 0.25)
raw = raw * rng.uniform(5, 50, N_CH) + rng.uniform(0, 200, N_CH)   # sensor units
gaps = rng.choice(N_STEPS, 25, replace=False)
raw[gaps, 3] = np.nan                                       # logger dropouts on channel 3

n_train = int(0.7 * N_STEPS)
mean, std = np.nanmean(raw[:n_train], 0), np.nanstd(raw[:n_train], 0)
series = ((raw - mean) / std).astype(np.float32)


def windows(lo, hi):
    xs, ys = [], []
    for s in range(lo, hi - SEQ_LEN - PRED_LEN + 1, STRIDE):
        xs.append(series[s:s + SEQ_LEN])
        ys.append(series[s + SEQ_LEN:s + SEQ_LEN + PRED_LEN])
    return torch.tensor(np.stack(xs)), torch.tensor(np.stack(ys))


x_train, y_train = windows(0, n_train)
x_val, y_val = windows(n_train - SEQ_LEN, N_STEPS)


class ResBlock(nn.Module):
    def __init__(self, seq_len, n_ch, ff_dim, dropout):
        super().__init__()
        self.norm_t = nn.BatchNorm1d(n_ch)
        self.time_fc = nn.Linear(seq_len, seq_len)
        self.norm_f = nn.BatchNorm1d(n_ch)
        self.feat_fc1 = nn.Linear(n_ch, ff_dim)
        self.feat_fc2 = nn.Linear(ff_dim, n_ch)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):                                   # x: (batch, time, channel)
        h = self.norm_t(x.transpose(1, 2))                  # (batch, channel, time)
        h = self.drop(torch.relu(self.time_fc(h))).transpose(1, 2)
        x = x + h
        h = self.norm_f(x.transpose(1, 2)).transpose(1, 2)
        h = self.drop(self.feat_fc2(self.drop(torch.relu(self.feat_fc1(h)))))
        return x + h


class TSMixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([ResBlock(SEQ_LEN, N_CH, FF_DIM, DROPOUT) for _ in range(N_BLOCK)])
        self.proj = nn.Linear(SEQ_LEN, PRED_LEN)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.proj(x.transpose(1, 2)).transpose(1, 2)


model = TSMixer()
#INIT
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
criterion = nn.MSELoss()


def evaluate():
    model.eval()
    with torch.no_grad():
        pred = model(x_val)
        return criterion(pred, y_val).item(), (pred - y_val).abs().mean().item()


n = len(x_train)
steps = (n + BATCH_SIZE - 1) // BATCH_SIZE
#STYLE
print(f"Train windows: {n}, validation windows: {len(x_val)}, lookback {SEQ_LEN}, horizon {PRED_LEN}, channels {N_CH}")
for epoch in range(1, EPOCHS + 1):
    print(f"Epoch {epoch}/{EPOCHS}")
    model.train()
    perm = torch.randperm(n)
    t0, tot, mae_tot = time.time(), 0.0, 0.0
    for i in range(steps):
        idx = perm[i * BATCH_SIZE:(i + 1) * BATCH_SIZE]
        pred = model(x_train[idx])
        loss = criterion(pred, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(idx)
        mae_tot += (pred.detach() - y_train[idx]).abs().mean().item() * len(idx)
    val_loss, val_mae = evaluate()
    el = time.time() - t0
    print(f"{steps}/{steps} - {el:.0f}s - {1000 * el / steps:.0f}ms/step - loss: {tot / n:.4f} - mae: {mae_tot / n:.4f}"
          f" - val_loss: {val_loss:.4f} - val_mae: {val_mae:.4f}")
