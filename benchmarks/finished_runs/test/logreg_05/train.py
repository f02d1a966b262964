"""Binary logistic regression on synthetic linearly-separable-ish data (SGD)."""
import math
import time
import json
from pathlib import Path
import torch
import torch.nn as nn

with open(Path(__file__).with_name("config.json")) as f:
    cfg = json.load(f)

SEED = cfg["seed"]
N_FEATURES = cfg["n_features"]
N_TRAIN = cfg["n_train"]
N_VAL = cfg["n_val"]
LR = cfg["lr"]
BATCH_SIZE = cfg["batch_size"]
EPOCHS = cfg["epochs"]
LOG_EVERY = cfg["log_every"]

torch.set_num_threads(1)
torch.manual_seed(SEED)

true_w = torch.randn(N_FEATURES) / math.sqrt(N_FEATURES) * 3.0
true_b = 0.3


def sample(n):
    x = torch.randn(n, N_FEATURES)
    logits = x @ true_w + true_b
    y = (torch.rand(n) < torch.sigmoid(logits)).float()
    return x, y


X_train, y_train = sample(N_TRAIN)
X_val, y_val = sample(N_VAL)
steps_per_epoch = N_TRAIN // BATCH_SIZE
val_steps = 1

model = nn.Linear(N_FEATURES, 1)
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR)

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
    t0 = time.time()
    perm = torch.randperm(N_TRAIN)
    run_loss, run_correct, run_n = 0.0, 0, 0
    t_iter = time.time()
    for step in range(1, steps_per_epoch + 1):
        idx = perm[(step - 1) * BATCH_SIZE: step * BATCH_SIZE]
        xb, yb = X_train[idx], y_train[idx]
        logits = model(xb).squeeze(1)
        loss = criterion(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        gnorm = grad_norm(model)
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        lr_now = optimizer.param_groups[0]["lr"]
        run_loss += loss_val * len(idx)
        run_correct += ((logits > 0).float() == yb).sum().item()
        run_n += len(idx)
        if step % LOG_EVERY == 0:
            iter_time = (time.time() - t_iter) / LOG_EVERY
            t_iter = time.time()
            eta_s = int(iter_time * (total_iters - global_step))
            eta = f"{eta_s // 3600}:{(eta_s % 3600) // 60:02d}:{eta_s % 60:02d}"
            print(f"{_ts()} - mmengine - INFO - Epoch(train) [{epoch}][{step:>{len(str(steps_per_epoch))}}/{steps_per_epoch}]  "
                  f"lr: {lr_now:.4e}  eta: {eta}  time: {iter_time:.4f}  data_time: {iter_time * 0.08:.4f}  memory: 0  "
                  f"grad_norm: {gnorm:.4f}  loss: {loss_val:.4f}")
    train_loss, train_metric = run_loss / run_n, run_correct / run_n
    with torch.no_grad():
        val_logits = model(X_val).squeeze(1)
        val_loss = criterion(val_logits, y_val).item()
        val_metric = ((val_logits > 0).float() == y_val).float().mean().item()
    t_epoch = time.time() - t0
    print(f"{_ts()} - mmengine - INFO - Saving checkpoint at " + str(epoch) + " epochs")
    print(f"{_ts()} - mmengine - INFO - Epoch(val) [{epoch}][{val_steps}/{val_steps}]    accuracy/top1: {100 * val_metric:.4f}  loss: {val_loss:.4f}  data_time: 0.0011  time: 0.0043")
