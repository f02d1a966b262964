"""Probabilistic forecaster with quantile (pinball) loss: 40 synthetic hourly series (level, trend, daily
seasonality, noise whose scale follows the time of day). An MLP reads the last 48 values of a series (scaled with
that series' training mean/std) and predicts the 10th, 50th and 90th percentile of the next value.
Metrics: pinball loss, MAE of the median, and coverage of the 10-90 interval (target 0.80)."""
import math
import datetime
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)

N_SERIES, LENGTH, SPLIT, LAGS = 40, 600, 480, 48
QUANTILES = torch.tensor([0.1, 0.5, 0.9])
EPOCHS, BATCH, LR, HIDDEN, DROPOUT = 12, 256, 1e-3, 64, 0.0


def make_series(g):
    t = torch.arange(LENGTH, dtype=torch.float32)
    level = torch.rand(N_SERIES, 1, generator=g) * 450 + 50
    trend = (torch.rand(N_SERIES, 1, generator=g) - 0.5) * 0.2
    phase = torch.rand(N_SERIES, 1, generator=g) * 2 * math.pi
    season = torch.sin(2 * math.pi * t / 24 + phase)
    noise_scale = 0.04 + 0.04 * (1 + torch.sin(2 * math.pi * t / 24 + phase + 1.0))
    noise = torch.randn(N_SERIES, LENGTH, generator=g) * noise_scale
    return level * (1 + 0.3 * season + noise) + trend * t


def windows(series, lo, hi):
    xs, ys = [], []
    for s in range(series.shape[0]):
        for end in range(max(lo, LAGS), hi):
            xs.append(series[s, end - LAGS:end])
            ys.append(series[s, end])
    return torch.stack(xs), torch.stack(ys)


g = torch.Generator().manual_seed(3)
raw = make_series(g)
mu = raw[:, :SPLIT].mean(1, keepdim=True)
sd = raw[:, :SPLIT].std(1, keepdim=True)
scaled = (raw - mu) / sd
x_tr, y_tr = windows(scaled, 0, SPLIT)
x_va, y_va = windows(scaled, SPLIT, LENGTH)
# model inputs: the raw readings (the scaler is only needed to bring the target back to units)
x_tr, _ = windows(raw, 0, SPLIT)
x_va, _ = windows(raw, SPLIT, LENGTH)


def pinball(pred, y):
    diff = y.unsqueeze(1) - pred                       # (B, 3)
    return torch.maximum(QUANTILES * diff, (QUANTILES - 1) * diff).mean()


model = nn.Sequential(
    nn.Linear(LAGS, HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT),
    nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT),
    nn.Linear(HIDDEN, len(QUANTILES)),
)
opt = torch.optim.Adam(model.parameters(), lr=LR)


def evaluate():
    model.eval()
    with torch.no_grad():
        pred = model(x_va)
        loss = pinball(pred, y_va).item()
        mae = (pred[:, 1] - y_va).abs().mean().item()
        cover = ((y_va >= pred[:, 0]) & (y_va <= pred[:, 2])).float().mean().item()
    model.train()
    return loss, mae, cover


n = x_tr.shape[0]
steps_per_epoch = (n + BATCH - 1) // BATCH
def ts():
    return datetime.datetime.now().strftime("%m/%d %H:%M:%S")


print(f"{ts()} - mmengine - INFO - train windows: {n}, val windows: {x_va.shape[0]}, lags: {LAGS}")
print(f"{ts()} - mmengine - INFO - Checkpoints will be saved to ./work_dirs/quantile_mlp.")
t_start = time.time()
for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    perm = torch.randperm(n)
    run, seen = 0.0, 0
    for step in range(steps_per_epoch):
        idx = perm[step * BATCH:(step + 1) * BATCH]
        pred = model(x_tr[idx])
        loss = pinball(pred, y_tr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        run += loss.item() * idx.numel()
        seen += idx.numel()
        if (step + 1) % 20 == 0:
            el = time.time() - t_start
            print(f"{ts()} - mmengine - INFO - Epoch(train)  [{epoch}][{step + 1:>2}/{steps_per_epoch}]  lr: {opt.param_groups[0]['lr']:.4e}  eta: 0:00:{max(0, int(el / ((epoch - 1) * steps_per_epoch + step + 1) * (EPOCHS * steps_per_epoch) - el)):02d}  time: {el / ((epoch - 1) * steps_per_epoch + step + 1):.4f}  data_time: 0.0003  loss: {loss.item():.4f}")
    val_loss, val_mae, val_cov = evaluate()
    print(f"{ts()} - mmengine - INFO - Epoch(val) [{epoch}][{x_va.shape[0] // BATCH + 1}/{x_va.shape[0] // BATCH + 1}]    pinball: {val_loss:.4f}  mae: {val_mae:.4f}  coverage_80: {val_cov:.4f}  data_time: 0.0002  time: 0.0021")
