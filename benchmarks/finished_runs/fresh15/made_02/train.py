"""MADE (masked autoencoder for distribution estimation) on synthetic 16-bit binary vectors: each vector is
drawn from one of 6 random Bernoulli prototypes (every bit copies the prototype with probability 0.9) and
the last two bits are always 1 (a fixed end-of-record marker). Two masked hidden layers of 128 ReLU units
with the natural autoregressive order, one logit per bit; the loss is the negative log-likelihood in nats
per vector (sum of per-bit Bernoulli NLLs). Adam on mini-batches; reported: train/val NLL."""
import math
import time
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
LR, BATCH, EPOCHS, WD = 1e-3, 64, 12, 0.0

def _bar(epoch, epochs, phase, i, n, el, **kw):
    pct = int(100 * i / n)
    rate = i / max(el, 1e-6)
    post = ", ".join(f"{k}={v:.3f}" for k, v in kw.items())
    sys.stderr.write(f"\r{epoch}/{epochs} * Epoch ({phase}): {pct:3d}% {i}/{n} [00:0{int(el) % 10}<00:00, {rate:.2f}it/s{', ' + post if post else ''}]")
    if i == n:
        sys.stderr.write("\n")


_t = [0.0]


def log_start(n_params, n_tr, n_va, lr, batch, epochs):
    print(f"MADE: {n_params} trainable parameters; loaders: train={(n_tr + batch - 1) // batch} batches, valid={(n_va + batch - 1) // batch} batches")


def log_step(epoch, i, n, loss, lr, gstep, el):
    if i == 1:
        _t[0] = el
    if i % 25 == 0 or i == n:
        _bar(epoch, EPOCHS, "train", i, n, el - _t[0], loss=loss)


def log_epoch(epoch, epochs, tl, vl, lr, el):
    _bar(epoch, epochs, "valid", 24, 24, 0.05, loss=vl)
    print(f"train ({epoch}/{epochs}) loss: {tl:.4f} | lr: {lr:.4f} | momentum: 0.9000")
    print(f"valid ({epoch}/{epochs}) loss: {vl:.4f} | lr: {lr:.4f} | momentum: 0.9000")
    print(f"* Epoch ({epoch}/{epochs}) ")


def log_end(vl, el):
    print(f"Top best models:\nlogs/checkpoints/train.12.pth\t{vl:.4f}")

D, K = 16, 6
gen = torch.Generator().manual_seed(11)
protos = (torch.rand(K, D, generator=gen) < 0.5).float()


def sample(n):
    comp = torch.randint(0, K, (n,), generator=gen)
    keep = torch.rand(n, D, generator=gen) < 0.9
    x = torch.where(keep, protos[comp], 1 - protos[comp])
    x[:, -2:] = 1.0
    return x


x_train, x_val = sample(6000), sample(1500)


class MaskedLinear(nn.Linear):
    def __init__(self, n_in, n_out):
        super().__init__(n_in, n_out)
        self.register_buffer("mask", torch.ones(n_out, n_in))

    def set_mask(self, mask):
        self.mask.data.copy_(mask.float().t())

    def forward(self, x):
        return F.linear(x, self.mask * self.weight, self.bias)


class MADE(nn.Module):
    def __init__(self, d=D, hidden=128):
        super().__init__()
        self.net = nn.Sequential(MaskedLinear(d, hidden), nn.ReLU(), MaskedLinear(hidden, hidden), nn.ReLU(),
                                 MaskedLinear(hidden, d))
        g = torch.Generator().manual_seed(1)
        m_in = torch.arange(1, d + 1)
        m1 = torch.randint(1, d, (hidden,), generator=g)
        m2 = torch.randint(int(m1.min()), d, (hidden,), generator=g)
        self.net[0].set_mask(m_in[:, None] <= m1[None, :])
        self.net[2].set_mask(m1[:, None] <= m2[None, :])
        self.net[4].set_mask(m2[:, None] < m_in[None, :])

    def forward(self, x):
        return self.net(x)


def nll(logits, x):
    return F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(1).mean()


model = MADE()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)
n_params = sum(p.numel() for p in model.parameters())
steps = (len(x_train) + BATCH - 1) // BATCH
log_start(n_params, len(x_train), len(x_val), LR, BATCH, EPOCHS)

gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    order = torch.randperm(len(x_train))
    total = 0.0
    for i in range(steps):
        idx = order[i * BATCH:(i + 1) * BATCH]
        xb = x_train[idx]
        optimizer.zero_grad()
        loss = nll(model(xb), xb)
        loss.backward()
        optimizer.step()
        gstep += 1
        total += loss.item() * len(idx)
        log_step(epoch, i + 1, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        val_nll = nll(model(x_val), x_val).item()
    log_epoch(epoch, EPOCHS, total / len(x_train), val_nll, optimizer.param_groups[0]["lr"], time.time() - t0)
log_end(val_nll, time.time() - t0)
