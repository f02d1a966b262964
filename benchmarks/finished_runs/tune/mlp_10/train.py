"""Tabular classification: 3-class MLP on synthetic features (teacher network labels)."""
import time
from tqdm import tqdm
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
N_FEATURES = 20
N_CLASSES = 3
N_TRAIN = 4000
N_VAL = 1000
HIDDEN = 128
DROPOUT = 0.1
LR = 0.01
BATCH_SIZE = 64
EPOCHS = 12
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


x_train, y_train = make_split(N_TRAIN)
x_val, y_val = make_split(N_VAL)

mean, std = x_train.mean(axis=0), x_train.std(axis=0)
x_train = (x_train - mean) / std
x_val = (x_val - mean) / std

train_ds = TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train))
val_ds = TensorDataset(torch.from_numpy(x_val), torch.from_numpy(y_val))
train_loader = DataLoader(train_ds, batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=256)
steps_per_epoch = len(train_loader)
val_steps = len(val_loader)


class MLP(nn.Module):
    def __init__(self, d_in, d_hidden, n_classes, dropout):
        super().__init__()
        layers = [nn.Linear(d_in, d_hidden), nn.Sigmoid()]
        for _ in range(9):
            layers += [nn.Linear(d_hidden, d_hidden), nn.Sigmoid(), nn.Dropout(dropout)]
        layers.append(nn.Linear(d_hidden, n_classes))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


model = MLP(N_FEATURES, HIDDEN, N_CLASSES, DROPOUT)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)

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


global_step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_correct, run_n = 0.0, 0, 0
    pbar = tqdm(total=steps_per_epoch, desc=f"Epoch {epoch}/{EPOCHS}")
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
        pbar.update(1)
        pbar.set_postfix(loss=f"{loss_val:.4f}")
    train_loss, train_metric = run_loss / run_n, run_correct / run_n
    val_loss, val_metric = evaluate(val_loader)
    t_epoch = time.time() - t0
    pbar.close()
    print(f"Epoch {epoch}: train loss {train_loss:.4f}, val loss {val_loss:.4f}, val acc {val_metric:.4f}", flush=True)
