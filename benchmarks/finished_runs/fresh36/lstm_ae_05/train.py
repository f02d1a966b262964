# LSTM encoder-decoder (sequence autoencoder) for anomaly detection on multivariate sensor windows
# (Malhotra et al. 2016 style): train on normal windows only, score windows by reconstruction error.
# Synthetic machine: 4 sensors = mixtures of slow sinusoids + noise; anomalies = spikes / level shifts / frozen sensor.
import math
import time

import numpy as np
import torch
import torch.nn as nn
import logging

SEED = 11
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)
logging.basicConfig(format="%(asctime)s [%(levelname)s] %(name)s: %(message)s", datefmt="%Y-%m-%d %H:%M:%S", level=logging.INFO)
log = logging.getLogger("lstm_ae")

N_SENSORS, WIN = 4, 40
HIDDEN = 32
BATCH_SIZE = 64
EPOCHS = 12
LR = 3e-3
CLIP = 1.0
NOISE = 0.05


def make_series(n_steps, rng):
    t = np.arange(n_steps)
    periods = np.array([50.0, 80.0, 33.0, 120.0])
    base = np.stack([np.sin(2 * np.pi * t / p + rng.uniform(0, 6.28)) for p in periods], 1)
    mix = np.array([[1.0, 0.3, 0.0, 0.2], [0.2, 1.0, 0.4, 0.0], [0.0, 0.5, 1.0, 0.3], [0.4, 0.0, 0.2, 1.0]])
    x = base @ mix.T
    x = x * np.array([3.0, 1.5, 10.0, 0.8]) + np.array([20.0, -5.0, 100.0, 2.0])   # engineering units
    return x + rng.normal(0, NOISE, size=x.shape) * np.array([3.0, 1.5, 10.0, 0.8])


def windows(x, stride):
    return np.stack([x[s:s + WIN] for s in range(0, len(x) - WIN + 1, stride)]).astype(np.float32)


rng = np.random.RandomState(SEED)
train_raw = make_series(12000, rng)
test_raw = make_series(3000, rng)
mu, sd = train_raw.mean(0), train_raw.std(0)
train_w = windows(train_raw, 4)
test_w = windows(test_raw, 20)
# inject anomalies into half of the test windows
is_anom = np.zeros(len(test_w), dtype=bool)
for i in range(len(test_w)):
    if rng.rand() < 0.5:
        is_anom[i] = True
        k, s = rng.randint(N_SENSORS), rng.randint(5, WIN - 10)
        kind = rng.randint(3)
        if kind == 0:
            test_w[i, s:s + 3, k] += rng.choice([-1, 1]) * rng.uniform(2.5, 4.0)
        elif kind == 1:
            test_w[i, s:, k] += rng.choice([-1, 1]) * rng.uniform(1.0, 2.0)
        else:
            test_w[i, s:, k] = test_w[i, s, k]
n_val = len(train_w) // 10
perm0 = rng.permutation(len(train_w))
val_w, train_w = train_w[perm0[:n_val]], train_w[perm0[n_val:]]
train_t, val_t, test_t = torch.tensor(train_w), torch.tensor(val_w), torch.tensor(test_w)


class LSTMAutoencoder(nn.Module):
    def __init__(self, n_in, hidden):
        super().__init__()
        self.encoder = nn.LSTM(n_in, hidden, batch_first=True)
        self.decoder = nn.LSTM(n_in, hidden, batch_first=True)
        self.out = nn.Linear(hidden, n_in)

    def forward(self, x):
        _, (h, c) = self.encoder(x)
        # decoder reconstructs the window in reverse order, fed with the (shifted) reversed target
        x_rev = torch.flip(x, [1])
        dec_in = torch.cat([torch.zeros_like(x_rev[:, :1]), x_rev[:, :-1]], 1)
        y, _ = self.decoder(dec_in, (h, c))
        return torch.flip(self.out(y), [1])


model = LSTMAutoencoder(N_SENSORS, HIDDEN)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS)


def recon_error(data):
    model.eval()
    with torch.no_grad():
        err = torch.cat([((model(data[i:i + 512]) - data[i:i + 512]) ** 2).mean((1, 2)) for i in range(0, len(data), 512)])
    model.train()
    return err.numpy()


def auroc(score, y):
    order = np.argsort(score)
    y = y[order]
    n_pos, n_neg = y.sum(), (~y).sum()
    return float((np.arange(1, len(y) + 1)[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


steps = math.ceil(len(train_t) / BATCH_SIZE)
t_start = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(len(train_t))
    tot, gmax = 0.0, 0.0
    for step in range(1, steps + 1):
        xb = train_t[perm[(step - 1) * BATCH_SIZE: step * BATCH_SIZE]]
        optimizer.zero_grad()
        loss = criterion(model(xb), xb)
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP).item()
        gmax = max(gmax, gnorm)
        optimizer.step()
        tot += loss.item() * len(xb)
        if step % 40 == 0:
            log.info("epoch %02d | step %3d/%d | loss %.5f | grad_norm %.3f | lr %.2e", epoch, step, steps, loss.item(), gnorm, optimizer.param_groups[0]["lr"])
    scheduler.step()
    tr_loss = tot / len(train_t)
    val_err = recon_error(val_t)
    val_loss = float(val_err.mean())
    thr = float(np.percentile(val_err, 99))
    test_err = recon_error(test_t)
    auc = auroc(test_err, is_anom)
    pred = test_err > thr
    prec = float((pred & is_anom).sum() / max(pred.sum(), 1))
    rec = float((pred & is_anom).sum() / is_anom.sum())
    log.info("epoch %02d finished | train_mse %.5f | val_mse %.5f | thr(p99) %.4f | test AUROC %.4f | P %.3f R %.3f", epoch, tr_loss, val_loss, thr, auc, prec, rec)
log.info("training done in %.1fs", time.time() - t_start)
