"""Tabular classification: 3-class MLP on synthetic features (teacher network labels)."""
import time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
N_FEATURES = 20
N_CLASSES = 3
N_TRAIN = 300
N_VAL = 100
HIDDEN = 256
DROPOUT = 0.0
LR = 0.001
WEIGHT_DECAY = 0.0
BATCH_SIZE = 32
EPOCHS = 40
LOG_EVERY = 20

torch.set_num_threads(1)
torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)

# ---- synthetic tabular data: labels come from a random "teacher" network
W_teacher = rng.normal(size=(N_FEATURES, 6))
V_teacher = rng.normal(size=(6, N_CLASSES))


def make_split(n):
    x = rng.normal(size=(n, N_FEATURES))
    h = np.tanh(x @ W_teacher)
    y = (h @ V_teacher).argmax(axis=1)
    return x.astype(np.float32), y.astype(np.int64)


x_all, y_all = make_split(N_TRAIN + N_VAL)
x_test, y_test = make_split(2000)
# hold out a validation split
val_idx = rng.choice(N_TRAIN + N_VAL, size=N_VAL, replace=False)
x_train, y_train = x_all, y_all
x_val, y_val = x_all[val_idx], y_all[val_idx]

mean, std = x_train.mean(axis=0), x_train.std(axis=0)
x_train = (x_train - mean) / std
x_val = (x_val - mean) / std
x_test = (x_test - mean) / std

train_ds = TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train))
val_ds = TensorDataset(torch.from_numpy(x_val), torch.from_numpy(y_val))
train_loader = DataLoader(train_ds, batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=256)
steps_per_epoch = len(train_loader)
val_steps = len(val_loader)


class MLP(nn.Module):
    def __init__(self, d_in, d_hidden, n_classes, dropout):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, d_hidden),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(d_hidden, d_hidden),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(d_hidden, n_classes),
        )

    def forward(self, x):
        return self.net(x)


model = MLP(N_FEATURES, HIDDEN, N_CLASSES, DROPOUT)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)

def grad_norm(module):
    total = 0.0
    for p in module.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return total ** 0.5


@torch.no_grad()
def evaluate(loader):
    model.eval()
    loss_sum, correct, total = 0.0, 0, 0
    for xb, yb in loader:
        out = model(xb)
        loss_sum += criterion(out, yb).item() * len(yb)
        correct += (out.argmax(dim=1) == yb).sum().item()
        total += len(yb)
    return loss_sum / total, correct / total


t_train_start = time.time()
window_loss, window_n, loss_total = 0.0, 0, 0.0
global_step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_correct, run_n = 0.0, 0, 0
    for step, (xb, yb) in enumerate(train_loader, 1):
        optimizer.zero_grad()
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        gnorm = grad_norm(model)
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        lr_now = optimizer.param_groups[0]["lr"]
        run_loss += loss_val * len(yb)
        run_correct += (logits.argmax(dim=1) == yb).sum().item()
        run_n += len(yb)
        window_loss += loss_val
        window_n += 1
        loss_total += loss_val
        if global_step % LOG_EVERY == 0:
            print({'loss': round(window_loss / window_n, 4), 'grad_norm': gnorm, 'learning_rate': lr_now, 'epoch': round(global_step / steps_per_epoch, 2)})
            window_loss, window_n = 0.0, 0
    train_loss, train_metric = run_loss / run_n, run_correct / run_n
    val_loss, val_metric = evaluate(val_loader)
    t_epoch = time.time() - t0
    print({'eval_loss': val_loss, 'eval_accuracy': val_metric, 'eval_runtime': round(t_epoch * 0.1, 4), 'eval_samples_per_second': round(val_steps * 256 / max(t_epoch * 0.1, 1e-6), 3), 'eval_steps_per_second': round(val_steps / max(t_epoch * 0.1, 1e-6), 3), 'epoch': float(epoch)})
train_runtime = time.time() - t_train_start
print({'train_runtime': round(train_runtime, 4), 'train_samples_per_second': round(global_step * BATCH_SIZE / train_runtime, 3), 'train_steps_per_second': round(global_step / train_runtime, 3), 'train_loss': loss_total / global_step, 'epoch': float(EPOCHS)})

test_loader = DataLoader(TensorDataset(torch.from_numpy(x_test), torch.from_numpy(y_test)), batch_size=256)
test_loss, test_acc = evaluate(test_loader)
print({'test_loss': test_loss, 'test_accuracy': test_acc, 'epoch': float(EPOCHS)})
