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
MAX_GRAD_NORM = 0.01

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
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=MAX_GRAD_NORM).item()
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        lr_now = optimizer.param_groups[0]["lr"]
        run_loss += loss_val * len(idx)
        run_correct += ((logits > 0).float() == yb).sum().item()
        run_n += len(idx)
        if global_step == 1 or global_step % LOG_EVERY == 0:
            print(f"step {global_step:>4d} loss {loss_val:.4e} grad_norm {gnorm:.4e}")
    train_loss, train_metric = run_loss / run_n, run_correct / run_n
    with torch.no_grad():
        val_logits = model(X_val).squeeze(1)
        val_loss = criterion(val_logits, y_val).item()
        val_metric = ((val_logits > 0).float() == y_val).float().mean().item()
    t_epoch = time.time() - t0
    print(f"step {global_step:>4d} val_loss {val_loss:.4e} val_acc {val_metric:.4f}")
