"""Binary logistic regression on synthetic linearly-separable-ish data (SGD)."""
import math
import time
import torch
import torch.nn as nn

SEED = 0
N_FEATURES = 30
N_TRAIN = 3000
N_VAL = 1000
LR = 0.1
BATCH_SIZE = 100
EPOCHS = 20
LOG_EVERY = 10

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

model = nn.Sequential(nn.Linear(N_FEATURES, 1), nn.Sigmoid())
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR)

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
    t0 = time.time()
    perm = torch.randperm(N_TRAIN)
    run_loss, run_correct, run_n = 0.0, 0, 0
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
        window_loss += loss_val
        window_n += 1
        loss_total += loss_val
        if global_step % LOG_EVERY == 0:
            print({'loss': round(window_loss / window_n, 4), 'grad_norm': gnorm, 'learning_rate': lr_now, 'epoch': round(global_step / steps_per_epoch, 2)})
            window_loss, window_n = 0.0, 0
    train_loss, train_metric = run_loss / run_n, run_correct / run_n
    with torch.no_grad():
        val_logits = model(X_val).squeeze(1)
        val_loss = criterion(val_logits, y_val).item()
        val_metric = ((val_logits > 0).float() == y_val).float().mean().item()
    t_epoch = time.time() - t0
    print({'eval_loss': val_loss, 'eval_accuracy': val_metric, 'eval_runtime': round(t_epoch * 0.1, 4), 'eval_samples_per_second': round(val_steps * 256 / max(t_epoch * 0.1, 1e-6), 3), 'eval_steps_per_second': round(val_steps / max(t_epoch * 0.1, 1e-6), 3), 'epoch': float(epoch)})
train_runtime = time.time() - t_train_start
print({'train_runtime': round(train_runtime, 4), 'train_samples_per_second': round(global_step * BATCH_SIZE / train_runtime, 3), 'train_steps_per_second': round(global_step / train_runtime, 3), 'train_loss': loss_total / global_step, 'epoch': float(EPOCHS)})
