"""LSTM forecaster: reads 48 past readings of a synthetic electrical-load series (kW) and predicts
the next 8 readings. Loss is MSE on standardised values; MAE is reported in kW."""
import json
import math
import time
from pathlib import Path
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

with open(Path(__file__).with_name("config.json")) as f:
    cfg = json.load(f)

SEED = cfg["seed"]
OPTIMIZER = cfg["optimizer"]
LR = cfg["lr"]
MOMENTUM = cfg["momentum"]
GRAD_CLIP = cfg["grad_clip"]
BATCH_SIZE = cfg["batch_size"]
EPOCHS = cfg["epochs"]
LOG_EVERY = cfg["log_every"]
N_TRAIN = cfg["n_train"]
N_VAL = cfg["n_val"]
WINDOW = cfg["window"]
HORIZON = cfg["horizon"]
HIDDEN = cfg["hidden"]
NOISE = cfg["noise"]

torch.set_num_threads(1)
torch.manual_seed(SEED)


def make_windows(n):
    t = torch.arange(WINDOW + HORIZON).float()
    f_slow = 0.02 + 0.03 * torch.rand(n, 1)
    f_fast = 0.15 + 0.1 * torch.rand(n, 1)
    phase = 2 * math.pi * torch.rand(n, 2)
    amp = 0.5 + torch.rand(n, 1)
    s = amp * torch.sin(2 * math.pi * f_slow * t + phase[:, :1]) + 0.4 * torch.sin(2 * math.pi * f_fast * t + phase[:, 1:])
    s = s + NOISE * torch.randn(n, WINDOW + HORIZON)
    load_kw = 1200.0 + 300.0 * s
    return load_kw[:, :WINDOW], load_kw[:, WINDOW:]


X_train_kw, Y_train_kw = make_windows(N_TRAIN)
X_val_kw, Y_val_kw = make_windows(N_VAL)
MU, SD = X_train_kw.mean().item(), X_train_kw.std().item()
print(f"train windows={N_TRAIN} val windows={N_VAL} load mean={MU:.1f}kW sd={SD:.1f}kW")


def scale(x):
    return (x - MU) / SD


def unscale(z):
    return z * SD + MU


train_loader = DataLoader(TensorDataset(scale(X_train_kw).unsqueeze(-1), scale(Y_train_kw)), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(scale(X_val_kw).unsqueeze(-1), scale(Y_val_kw)), batch_size=200)
steps_per_epoch = len(train_loader)


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(1, HIDDEN, batch_first=True, dropout=0.1)
        self.head = nn.Linear(HIDDEN, HORIZON)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


model = Forecaster()
criterion = nn.MSELoss()


def forward_loss(batch):
    xb, yb = batch
    pred = model(xb)
    loss = criterion(pred, yb)
    mae_kw = (unscale(pred) - unscale(yb)).abs().mean().item()
    return loss, mae_kw, len(yb)


if OPTIMIZER == "sgd":
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
else:
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)


@torch.no_grad()
def evaluate():
    model.eval()
    tot_loss, tot_metric, tot_n = 0.0, 0.0, 0
    for batch in val_loader:
        loss, metric, n = forward_loss(batch)
        tot_loss += loss.item() * n
        tot_metric += metric * n
        tot_n += n
    return tot_loss / tot_n, tot_metric / tot_n


print("| epoch | train_loss | train_mae | val_loss | val_mae |       lr |  time |")
print("|------:|-----------:|----------:|---------:|--------:|---------:|------:|")
global_step = 0
t_start = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_metric, run_n = 0.0, 0.0, 0
    for step, batch in enumerate(train_loader, 1):
        optimizer.zero_grad()
        loss, metric, n = forward_loss(batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), GRAD_CLIP)
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        run_loss += loss_val * n
        run_metric += metric * n
        run_n += n
    train_loss, train_metric = run_loss / run_n, run_metric / run_n
    t_eval = time.time()
    val_loss, val_metric = evaluate()
    eval_time = time.time() - t_eval
    epoch_time = time.time() - t0
    lr_now = optimizer.param_groups[0]["lr"]
    print(f"| {epoch:>5} | {train_loss:>10.4f} | {train_metric:>9.4f} | {val_loss:>8.4f} | {val_metric:>7.4f} | {lr_now:>8.2e} | {epoch_time:>4.1f}s |")

naive = (X_val_kw[:, -1:] - Y_val_kw).abs().mean().item()
print(f"reference: last-value baseline MAE on val = {naive:.1f}kW")
