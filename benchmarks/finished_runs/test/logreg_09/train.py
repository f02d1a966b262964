"""Binary logistic regression on synthetic linearly-separable-ish data (SGD)."""
import math
import time
import torch
import torch.nn as nn

SEED = 0
N_FEATURES = 30
N_TRAIN = 60
N_VAL = 30
LR = 0.5
BATCH_SIZE = 20
EPOCHS = 80
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
X_val, y_val = X_train[:N_VAL], y_train[:N_VAL]
X_test, y_test = sample(2000)
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


print("epoch,train_loss,val_loss,val_acc")
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
    train_loss, train_metric = run_loss / run_n, run_correct / run_n
    with torch.no_grad():
        val_logits = model(X_val).squeeze(1)
        val_loss = criterion(val_logits, y_val).item()
        val_metric = ((val_logits > 0).float() == y_val).float().mean().item()
    t_epoch = time.time() - t0
    print(f"{epoch},{train_loss:.4f},{val_loss:.4f},{val_metric:.3f}")

with torch.no_grad():
    test_logits = model(X_test).squeeze(1)
    test_loss = criterion(test_logits, y_test).item()
    test_acc = ((test_logits > 0).float() == y_test).float().mean().item()
print(f"test,{test_loss:.4f},{test_acc:.3f}")
