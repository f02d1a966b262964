"""Binary logistic regression on synthetic linearly-separable-ish data (SGD)."""
import math
import time
from pathlib import Path

import yaml
import torch
import torch.nn as nn

CONFIG_PATH = Path(__file__).with_name("config.yaml")
with open(CONFIG_PATH) as f:
    cfg = yaml.safe_load(f)
print(f"loaded config from {CONFIG_PATH.name}: {cfg}")

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
    y = (logits > 0).float()
    return x, y


X_train, y_train = sample(N_TRAIN)
X_val, y_val = sample(N_VAL)
steps_per_epoch = N_TRAIN // BATCH_SIZE
val_steps = 1

model = nn.Linear(N_FEATURES, 1)


def criterion(logits, targets):
    probs = torch.sigmoid(logits)
    return -(targets * torch.log(probs) + (1 - targets) * torch.log(1 - probs)).mean()


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
    print(f"Epoch {epoch}/{EPOCHS}")
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
    train_loss, train_metric = run_loss / run_n, run_correct / run_n
    with torch.no_grad():
        val_logits = model(X_val).squeeze(1)
        val_loss = criterion(val_logits, y_val).item()
        val_metric = ((val_logits > 0).float() == y_val).float().mean().item()
    t_epoch = time.time() - t0
    ms_per_step = 1000.0 * t_epoch / steps_per_epoch
    print(f"{steps_per_epoch}/{steps_per_epoch} [==============================] - {t_epoch:.0f}s {ms_per_step:.0f}ms/step"
          f" - loss: {train_loss:.4f} - accuracy: {train_metric:.4f} - val_loss: {val_loss:.4f} - val_accuracy: {val_metric:.4f}")
