"""RealNVP-style normalising flow on synthetic 2-D "two moons" data: a stack of affine coupling layers with
alternating masks, trained by maximum likelihood (NLL in nats per sample) under a standard-normal base density."""
import yaml
import math
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
with open("config.yaml") as f:
    cfg = yaml.safe_load(f)
LR = cfg["lr"]
BATCH_SIZE = cfg["batch_size"]
EPOCHS = cfg["epochs"]
LOG_EVERY = cfg["log_every"]
N_TRAIN = cfg["n_train"]
N_VAL = cfg["n_val"]
N_COUPLINGS = cfg["n_couplings"]
HIDDEN = cfg["hidden"]

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


def make_moons(n, seed):
    g = torch.Generator().manual_seed(seed)
    k = torch.randint(0, 2, (n,), generator=g)
    th = math.pi * torch.rand(n, generator=g)
    x = torch.where(k == 0, torch.cos(th), 1 - torch.cos(th))
    y = torch.where(k == 0, torch.sin(th), 0.5 - torch.sin(th))
    pts = torch.stack([x, y], 1) + 0.06 * torch.randn(n, 2, generator=g)
    return (pts - torch.tensor([0.5, 0.25])) / torch.tensor([0.87, 0.5])


x_tr = make_moons(N_TRAIN, SEED + 1)
x_va = make_moons(N_VAL, SEED + 2)
train_loader = DataLoader(TensorDataset(x_tr), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(x_va), batch_size=500)
info(f"two-moons: train {len(x_tr)} val {len(x_va)} batch {BATCH_SIZE}")


class Coupling(nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.register_buffer("mask", mask)
        self.net = nn.Sequential(nn.Linear(2, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                                 nn.Linear(HIDDEN, 4))
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, x):
        xm = x * self.mask
        s, t = self.net(xm).chunk(2, dim=1)
        s = torch.tanh(s)
        s = s * (1 - self.mask)
        t = t * (1 - self.mask)
        y = xm + (1 - self.mask) * (x * torch.exp(s) + t)
        return y, s.sum(1)


class RealNVP(nn.Module):
    def __init__(self):
        super().__init__()
        masks = [torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0]) for i in range(N_COUPLINGS)]
        self.layers = nn.ModuleList(Coupling(m) for m in masks)

    def forward(self, x):
        logdet = torch.zeros(len(x))
        for layer in self.layers:
            x, ld = layer(x)
            logdet = logdet + ld
        return x, logdet


def base_log_prob(z):
    return -0.5 * (z ** 2).sum(1) - math.log(2 * math.pi)


model = RealNVP()
for layer in model.layers[1::2]:
    layer.requires_grad_(False)
info(f"RealNVP with {N_COUPLINGS} couplings, {sum(p.numel() for p in model.parameters() if p.requires_grad):,} trainable params")
optimizer = torch.optim.Adam(model.parameters(), lr=LR)


def forward_loss(batch):
    z, logdet = model(batch[0])
    nll = -(base_log_prob(z) + logdet).mean()
    return nll, {"loss": nll.item()}


@torch.no_grad()
def evaluate():
    model.eval()
    tot, n = 0.0, 0
    for batch in val_loader:
        loss, _ = forward_loss(batch)
        tot += loss.item() * len(batch[0])
        n += len(batch[0])
    return {"loss": tot / n}


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
