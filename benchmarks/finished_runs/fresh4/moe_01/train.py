"""Mixture-of-experts MLP classifier on synthetic tabular data: a softmax gate over 4 expert MLPs,
each region of the input space being governed by its own linear rule (so different experts should
specialise), with a small load-balancing penalty on the mean gate usage."""
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
LR = 2e-3
BATCH_SIZE = 64
EPOCHS = 10
LOG_EVERY = 25
N_FEAT = 24
N_CLASSES = 5
N_EXPERTS = 4
HIDDEN = 48
N_TRAIN = 6000
N_VAL = 1500
BALANCE_WEIGHT = 0.01

torch.set_num_threads(1)
torch.manual_seed(SEED)
def wrap_epoch(it, epoch):
    return it


def on_step(epoch, step, n_steps, loss, metrics, lr, gstep):
    pass


def on_epoch(epoch, n_steps, train, val, elapsed, lr):
    parts = [f"{k}: {v:.4f}" for k, v in train.items()] + [f"val_{k}: {v:.4f}" for k, v in val.items()]
    ms = 1000.0 * elapsed / max(n_steps, 1)
    print(f"Epoch {epoch}/{EPOCHS}")
    print(f"{n_steps}/{n_steps} [==============================] - {elapsed:.0f}s {ms:.0f}ms/step - " + " - ".join(parts))


def on_end(total_time, train):
    pass

gen = torch.Generator().manual_seed(123)
REGION_CENTERS = 2.0 * torch.randn(N_EXPERTS, N_FEAT, generator=gen)
REGION_RULES = torch.randn(N_EXPERTS, N_FEAT, N_CLASSES, generator=gen)


def make_split(n, seed):
    g = torch.Generator().manual_seed(seed)
    region = torch.randint(0, N_EXPERTS, (n,), generator=g)
    x = REGION_CENTERS[region] + torch.randn(n, N_FEAT, generator=g)
    scores = torch.einsum("nf,nfc->nc", x - REGION_CENTERS[region], REGION_RULES[region])
    y = (scores + 0.3 * torch.randn(n, N_CLASSES, generator=g)).argmax(1)
    return x, y


x_tr, y_tr = make_split(N_TRAIN, SEED + 1)
x_va, y_va = make_split(N_VAL, SEED + 2)
train_ds = TensorDataset(x_tr, y_tr)
train_loader = DataLoader(train_ds, batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(x_va, y_va), batch_size=500)
print(f"train {len(x_tr)} val {len(x_va)} features {N_FEAT} classes {N_CLASSES} "
      f"class counts {torch.bincount(y_tr, minlength=N_CLASSES).tolist()}")


class Expert(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(N_FEAT, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, N_CLASSES))

    def forward(self, x):
        return self.net(x)


class MoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(N_FEAT, N_EXPERTS)
        self.experts = nn.ModuleList([Expert() for _ in range(N_EXPERTS)])

    def forward(self, x):
        w = F.softmax(self.gate(x), dim=-1)                          # (B, E)
        outs = torch.stack([e(x) for e in self.experts], dim=1)      # (B, E, C)
        logits = (w.unsqueeze(-1) * outs).sum(1)
        return logits, w


model = MoE()
print(model)
print(f"trainable params: {sum(p.numel() for p in model.parameters() if p.requires_grad):,}")
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
criterion = nn.CrossEntropyLoss()


def forward_loss(xb, yb):
    logits, w = model(xb)
    usage = w.mean(0)
    balance = N_EXPERTS * (usage * usage).sum()
    loss = criterion(logits, yb) + BALANCE_WEIGHT * balance
    acc = (logits.argmax(1) == yb).float().mean().item()
    return loss, acc


@torch.no_grad()
def evaluate():
    model.eval()
    tot_loss, tot_acc, n = 0.0, 0.0, 0
    for xb, yb in val_loader:
        loss, acc = forward_loss(xb, yb)
        tot_loss += loss.item() * len(xb)
        tot_acc += acc * len(xb)
        n += len(xb)
    return {"loss": tot_loss / n, "acc": tot_acc / n}


t0 = time.time()
gstep = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t_ep = time.time()
    run_loss, run_acc, seen = 0.0, 0.0, 0
    n_steps = len(train_loader)
    for step, (xb, yb) in enumerate(wrap_epoch(train_loader, epoch), 1):
        optimizer.zero_grad()
        loss, acc = forward_loss(xb, yb)
        loss.backward()
        optimizer.step()
        gstep += 1
        run_loss += loss.item() * len(xb)
        run_acc += acc * len(xb)
        seen += len(xb)
        on_step(epoch, step, n_steps, loss.item(), {"acc": acc}, optimizer.param_groups[0]["lr"], gstep)
    val = evaluate()
    on_epoch(epoch, n_steps, {"loss": run_loss / seen, "acc": run_acc / seen}, val, time.time() - t_ep, optimizer.param_groups[0]["lr"])
on_end(time.time() - t0, {})
