"""Mixture density network (5 Gaussian components) for the classic multi-valued inverse problem:
predict y from x where x = y + 0.3 sin(2 pi y) + noise. Loss is the mixture negative log-likelihood."""
import math
import time
import warnings
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
LR = 0.002
BATCH_SIZE = 100
EPOCHS = 15
WEIGHT_DECAY = 0.0
N_COMPONENTS = 5
HIDDEN = 64
N_TRAIN = 3000
N_VAL = 1000
LOG_EVERY = 10

torch.set_num_threads(1)
torch.manual_seed(SEED)


def make_data(n):
    y = torch.rand(n, 1)
    x = y + 0.3 * torch.sin(2 * math.pi * y) + 0.05 * torch.randn(n, 1)
    return x, y


X_train, y_train = make_data(N_TRAIN)
X_val, y_val = make_data(N_VAL)
train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=500)
steps_per_epoch = len(train_loader)


class MDN(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, HIDDEN), nn.Tanh())
        self.pi = nn.Linear(HIDDEN, N_COMPONENTS)
        self.mu = nn.Linear(HIDDEN, N_COMPONENTS)
        self.log_sigma = nn.Linear(HIDDEN, N_COMPONENTS)

    def forward(self, x):
        h = self.body(x)
        return F.log_softmax(self.pi(h), dim=-1), self.mu(h), self.log_sigma(h)


def mdn_nll(log_pi, mu, log_sigma, y):
    sigma = torch.exp(log_sigma)
    log_prob = -0.5 * ((y - mu) / sigma) ** 2 - log_sigma - 0.5 * math.log(2 * math.pi)
    return -torch.logsumexp(log_pi + log_prob, dim=-1).mean()


model = MDN().half()  # fp16 weights to halve memory
print(model)


def forward_loss(batch):
    xb, yb = batch
    xb, yb = xb.half(), yb.half()
    log_pi, mu, log_sigma = model(xb)
    loss = mdn_nll(log_pi, mu, log_sigma, yb)
    best = log_pi.argmax(-1, keepdim=True)
    mode_mae = (mu.gather(-1, best) - yb).abs().mean().item()
    return loss, mode_mae, len(yb)


optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)


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
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        run_loss += loss_val * n
        run_metric += metric * n
        run_n += n
        if step % LOG_EVERY == 0:
            print(f"  step {step:4d}  loss {loss_val:.4f}")
    train_loss, train_metric = run_loss / run_n, run_metric / run_n
    t_eval = time.time()
    val_loss, val_metric = evaluate()
    eval_time = time.time() - t_eval
    epoch_time = time.time() - t0
    lr_now = optimizer.param_groups[0]["lr"]
    print(f"epoch {epoch}: train loss {train_loss:.4f}, train mode-mae {train_metric:.4f}, val loss {val_loss:.4f}, val mode-mae {val_metric:.4f}")
print(f"finished {EPOCHS} epochs in {time.time() - t_start:.1f}s")

with torch.no_grad():
    probe = torch.full((1, 1), 0.5, dtype=next(model.parameters()).dtype)
    log_pi, mu, log_sigma = model(probe)
    print("mixture at x=0.5: pi=" + " ".join(f"{v:.2f}" for v in log_pi.exp()[0].tolist()) + " | mu=" + " ".join(f"{v:.2f}" for v in mu[0].tolist()))
