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
LR = 0.01
BATCH_SIZE = 64
EPOCHS = 20
LOG_EVERY = 25
DEPTH = 10

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

layers = [nn.Linear(N_FEATURES, HIDDEN), nn.Sigmoid()]
for _ in range(DEPTH):
    layers += [nn.Linear(HIDDEN, HIDDEN), nn.Sigmoid()]
layers.append(nn.Linear(HIDDEN, 1))
model = nn.Sequential(*layers)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)

def grad_norm(module):
    total = 0.0
    for p in module.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return total ** 0.5


t_train_start = time.time()
window_loss, window_n, loss_total = 0.0, 0, 0.0
global_step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    perm = torch.randperm(N_TRAIN)
    run_loss, run_abs, run_n = 0.0, 0.0, 0
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
        window_loss += loss_val
        window_n += 1
        loss_total += loss_val
        if global_step % LOG_EVERY == 0:
            print({'loss': round(window_loss / window_n, 4), 'grad_norm': gnorm, 'learning_rate': lr_now, 'epoch': round(global_step / steps_per_epoch, 2)})
            window_loss, window_n = 0.0, 0
    train_loss, train_metric = run_loss / run_n, run_abs / run_n
    model.eval()
    with torch.no_grad():
        val_pred = model(X_val).squeeze(-1)
        val_loss = loss_fn(val_pred, y_val).item()
        val_metric = (val_pred - y_val).abs().mean().item()
    t_epoch = time.time() - t0
    print({'eval_loss': val_loss, 'eval_mae': val_metric, 'eval_runtime': round(t_epoch * 0.1, 4), 'eval_samples_per_second': round(val_steps * 256 / max(t_epoch * 0.1, 1e-6), 3), 'eval_steps_per_second': round(val_steps / max(t_epoch * 0.1, 1e-6), 3), 'epoch': float(epoch)})
train_runtime = time.time() - t_train_start
print({'train_runtime': round(train_runtime, 4), 'train_samples_per_second': round(global_step * BATCH_SIZE / train_runtime, 3), 'train_steps_per_second': round(global_step / train_runtime, 3), 'train_loss': loss_total / global_step, 'epoch': float(EPOCHS)})
