"""Regression MLP on a synthetic nonlinear function of 8 features."""
import math
import time
import torch
import torch.nn as nn

SEED = 0
N_FEATURES = 8
N_TRAIN = 3000
N_VAL = 800
HIDDEN = 64
LR = 0.001
BATCH_SIZE = 64
EPOCHS = 20
LOG_EVERY = 25

torch.set_num_threads(1)
torch.manual_seed(SEED)


def target_fn(x):
    return 2.0 * torch.sin(x[:, 0]) + x[:, 1] * x[:, 2] + 0.5 * x[:, 3] ** 2 - x[:, 4]


X_all = torch.randn(N_TRAIN + N_VAL, N_FEATURES)
y_all = target_fn(X_all) + 0.1 * torch.randn(N_TRAIN + N_VAL)
X_train, y_train = X_all[:N_TRAIN], y_all[:N_TRAIN]
X_val, y_val = X_all[N_TRAIN:], y_all[N_TRAIN:]
y_mean, y_std = y_train.mean(), y_train.std()
y_train = (y_train - y_mean) / y_std
y_val = (y_val - y_mean) / y_std
steps_per_epoch = math.ceil(N_TRAIN / BATCH_SIZE)
val_steps = 1

model = nn.Sequential(
    nn.Linear(N_FEATURES, HIDDEN),
    nn.ReLU(),
    nn.Linear(HIDDEN, HIDDEN),
    nn.ReLU(),
    nn.Linear(HIDDEN, 1),
)
# the first two layers come from the feature model and stay fixed
for layer in list(model)[:4]:
    for p in layer.parameters():
        p.requires_grad_(False)
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)

def grad_norm(module):
    total = 0.0
    for p in module.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return total ** 0.5


def _ts():
    return time.strftime("%m/%d %H:%M:%S")

t_train_start = time.time()
total_iters = EPOCHS * steps_per_epoch
print(f"{_ts()} - mmengine - INFO - Checkpoints will be saved to ./work_dirs.")
global_step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    perm = torch.randperm(N_TRAIN)
    run_loss, run_abs, run_n = 0.0, 0.0, 0
    t_iter = time.time()
    for step in range(1, steps_per_epoch + 1):
        idx = perm[(step - 1) * BATCH_SIZE: step * BATCH_SIZE]
        xb, yb = X_train[idx], y_train[idx]
        pred = model(xb).squeeze(-1)
        loss = loss_fn(pred, yb)
        optimizer.zero_grad()
        loss.backward()
        gnorm = grad_norm(model)
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        lr_now = optimizer.param_groups[0]["lr"]
        run_loss += loss_val * len(idx)
        run_abs += (pred - yb).abs().sum().item()
        run_n += len(idx)
        if step % LOG_EVERY == 0:
            iter_time = (time.time() - t_iter) / LOG_EVERY
            t_iter = time.time()
            eta_s = int(iter_time * (total_iters - global_step))
            eta = f"{eta_s // 3600}:{(eta_s % 3600) // 60:02d}:{eta_s % 60:02d}"
            print(f"{_ts()} - mmengine - INFO - Epoch(train) [{epoch}][{step:>{len(str(steps_per_epoch))}}/{steps_per_epoch}]  "
                  f"lr: {lr_now:.4e}  eta: {eta}  time: {iter_time:.4f}  data_time: {iter_time * 0.08:.4f}  memory: 0  "
                  f"grad_norm: {gnorm:.4f}  loss: {loss_val:.4f}")
    train_loss, train_metric = run_loss / run_n, run_abs / run_n
    model.eval()
    with torch.no_grad():
        val_pred = model(X_val).squeeze(-1)
        val_loss = loss_fn(val_pred, y_val).item()
        val_metric = (val_pred - y_val).abs().mean().item()
    t_epoch = time.time() - t0
    print(f"{_ts()} - mmengine - INFO - Saving checkpoint at " + str(epoch) + " epochs")
    print(f"{_ts()} - mmengine - INFO - Epoch(val) [{epoch}][{val_steps}/{val_steps}]    mae: {val_metric:.4f}  loss: {val_loss:.4f}  data_time: 0.0011  time: 0.0043")
