"""DeepSets set classifier: a shared per-element MLP (phi), sum pooling over the set, and an MLP (rho) predicting
which of 5 latent clusters is the majority among the 16 elements of each synthetic set of 8-D points."""
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
LR = 0.001
BATCH_SIZE = 64
EPOCHS = 8
LOG_EVERY = 20
N_TRAIN = 4000
N_VAL = 1000
SET_SIZE = 16
DIM = 8
N_CLASSES = 5
HIDDEN = 64
LABEL_NOISE = 0.0

torch.set_num_threads(1)
torch.manual_seed(SEED)

def info(msg):
    print(msg)


def wrap_epoch(it, epoch):
    print(f"Epoch {epoch}/{EPOCHS}")
    return it


def on_step(epoch, step, n_steps, m, lr, gstep):
    pass


def on_epoch(epoch, n_steps, tr, va, elapsed, lr):
    parts = [f"{k}: {v:.4f}" for k, v in tr.items()] + [f"val_{k}: {v:.4f}" for k, v in va.items()]
    ms = int(1000 * elapsed / max(n_steps, 1))
    print(f"{n_steps}/{n_steps} - {int(round(elapsed))}s - {ms}ms/step - " + " - ".join(parts))


def on_end(total, tr):
    pass


CENTERS = torch.randn(N_CLASSES, DIM, generator=torch.Generator().manual_seed(SEED + 50)) * 1.2


def make_sets(n, seed, noise=0.0):
    g = torch.Generator().manual_seed(seed)
    major = torch.randint(0, N_CLASSES, (n,), generator=g)
    comp = torch.randint(0, N_CLASSES, (n, SET_SIZE), generator=g)
    n_major = 6
    comp[:, :n_major] = major[:, None]
    comp = torch.gather(comp, 1, torch.argsort(torch.rand(n, SET_SIZE, generator=g), 1))
    x = CENTERS[comp] + 0.9 * torch.randn(n, SET_SIZE, DIM, generator=g)
    counts = F.one_hot(comp, N_CLASSES).sum(1)
    y = counts.argmax(1)
    if noise > 0:
        flip = torch.rand(n, generator=g) < noise
        y = torch.where(flip, torch.randint(0, N_CLASSES, (n,), generator=g), y)
    return x, y


x_tr, y_tr = make_sets(N_TRAIN, SEED + 1, LABEL_NOISE)
x_va, y_va = make_sets(N_VAL, SEED + 2)
y_tr, y_va = torch.tensor(y_tr), torch.tensor(y_va)
train_loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(x_va, y_va), batch_size=500)
info(f"sets: train {len(x_tr)} val {len(x_va)} set size {SET_SIZE} dim {DIM} classes {N_CLASSES} counts {torch.bincount(y_tr, minlength=N_CLASSES).tolist()}")


class DeepSets(nn.Module):
    def __init__(self):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU())
        self.rho = nn.Sequential(nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, N_CLASSES))

    def forward(self, x):
        return self.rho(self.phi(x).sum(1) / SET_SIZE)


model = DeepSets()
info(f"DeepSets params: {sum(p.numel() for p in model.parameters()):,}")
optimizer = torch.optim.Adam(model.parameters(), lr=LR)


def forward_loss(batch):
    x, y = batch
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    acc = (logits.argmax(1) == y).float().mean().item()
    return loss, {"loss": loss.item(), "acc": acc}


@torch.no_grad()
def evaluate():
    model.eval()
    tot, tacc, n = 0.0, 0.0, 0
    for batch in val_loader:
        loss, m = forward_loss(batch)
        tot += loss.item() * len(batch[0])
        tacc += m["acc"] * len(batch[0])
        n += len(batch[0])
    return {"loss": tot / n, "acc": tacc / n}


t0 = time.time()
gstep = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t_ep = time.time()
    sums, seen = {}, 0
    n_steps = len(train_loader)
    for step, batch in enumerate(wrap_epoch(train_loader, epoch), 1):
        optimizer.zero_grad()
        loss, m = forward_loss(batch)
        loss.backward()
        optimizer.step()
        gstep += 1
        bs = len(batch[0])
        for k, v in m.items():
            sums[k] = sums.get(k, 0.0) + v * bs
        seen += bs
        on_step(epoch, step, n_steps, m, optimizer.param_groups[0]["lr"], gstep)
    val = evaluate()
    on_epoch(epoch, n_steps, {k: v / seen for k, v in sums.items()}, val, time.time() - t_ep, optimizer.param_groups[0]["lr"])
on_end(time.time() - t0, {})
