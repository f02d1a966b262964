"""Small WaveNet-style autoregressive model: a stack of dilated causal 1-D convolutions with gated
tanh*sigmoid units, residual and skip connections, predicting the mu-law bin (32 classes) of the
next sample of synthetic quasi-periodic waveforms (sums of sines with drifting amplitude + noise)."""
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, TensorDataset

SEED = 0
LR = 2e-3
BATCH_SIZE = 32
EPOCHS = 6
LOG_EVERY = 10
N_TRAIN = 1600
N_VAL = 320
WIN = 128
N_BINS = 32
CHANNELS = 32
DILATIONS = [1, 2, 4, 8, 16, 1, 2, 4, 8, 16]

torch.set_num_threads(1)
torch.manual_seed(SEED)
_header = []


def wrap_epoch(it, epoch):
    return it


def on_step(epoch, step, n_steps, loss, metrics, lr, gstep):
    pass


def on_epoch(epoch, n_steps, train, val, elapsed, lr):
    cols = ["epoch"] + [f"train_{k}" for k in train] + [f"val_{k}" for k in val] + ["lr", "time"]
    if not _header:
        _header.extend(cols)
        print(",".join(cols))
    vals = [str(epoch)] + [f"{v:.5f}" for v in train.values()] + [f"{v:.5f}" for v in val.values()] + [f"{lr:.3g}", f"{elapsed:.2f}"]
    print(",".join(vals))


def on_end(total_time, train):
    pass


def mu_law_encode(x, bins=N_BINS):
    mu = bins - 1
    y = torch.sign(x) * torch.log1p(mu * x.abs()) / math.log1p(mu)
    return ((y + 1) / 2 * mu + 0.5).long().clamp(0, mu)


def make_windows(n, seed):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(WIN + 1).float()
    freqs = 0.02 + 0.2 * torch.rand(n, 3, generator=g)
    phase = 2 * math.pi * torch.rand(n, 3, generator=g)
    amp = torch.rand(n, 3, generator=g)
    sig = (amp[:, :, None] * torch.sin(2 * math.pi * freqs[:, :, None] * t + phase[:, :, None])).sum(1)
    sig = sig * (1 + 0.3 * torch.sin(2 * math.pi * t / 97.0))
    sig = sig + 0.03 * torch.randn(n, WIN + 1, generator=g)
    sig = sig / sig.abs().amax(dim=1, keepdim=True).clamp_min(1e-3) * 0.95
    x = sig[:, :-1].unsqueeze(1)
    y = mu_law_encode(sig[:, 1:])
    return x, y


x_tr, y_tr = make_windows(N_TRAIN, SEED + 1)
import json
import numpy as np

# held-out windows are shipped as a JSON export (lists of floats)
_x, _y = make_windows(N_VAL, SEED + 2)
_rec = json.loads(json.dumps({"x": _x.tolist(), "y": _y.tolist()}))
x_va, y_va = torch.from_numpy(np.array(_rec["x"])), torch.from_numpy(np.array(_rec["y"]))
train_loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(x_va, y_va), batch_size=160)
print(f"train windows {len(x_tr)}  val windows {len(x_va)}  window {WIN}  bins {N_BINS}")


class CausalConv1d(nn.Conv1d):
    def __init__(self, c_in, c_out, kernel_size, dilation=1):
        super().__init__(c_in, c_out, kernel_size, dilation=dilation)
        self.left_pad = (kernel_size - 1) * dilation

    def forward(self, x):
        return super().forward(F.pad(x, (self.left_pad, 0)))


class ResidualBlock(nn.Module):
    def __init__(self, ch, dilation):
        super().__init__()
        self.conv = CausalConv1d(ch, 2 * ch, 2, dilation)
        self.res = nn.Conv1d(ch, ch, 1)
        self.skip = nn.Conv1d(ch, ch, 1)

    def forward(self, x):
        a, b = self.conv(x).chunk(2, dim=1)
        h = torch.tanh(a) * torch.sigmoid(b)
        return x + self.res(h), self.skip(h)


class WaveNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = CausalConv1d(1, CHANNELS, 2)
        self.blocks = nn.ModuleList(ResidualBlock(CHANNELS, d) for d in DILATIONS)
        self.head = nn.Sequential(nn.ReLU(), nn.Conv1d(CHANNELS, CHANNELS, 1), nn.ReLU(), nn.Conv1d(CHANNELS, N_BINS, 1))

    def forward(self, x):
        h = self.inp(x)
        skips = 0
        for blk in self.blocks:
            h, s = blk(h)
            skips = skips + s
        return self.head(skips)


model = WaveNet()
print(f"WaveNet: {len(DILATIONS)} residual blocks, dilations {DILATIONS}, receptive field {sum(DILATIONS) + 2} samples")
print(f"params: {sum(p.numel() for p in model.parameters()):,}")
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
criterion = nn.CrossEntropyLoss()


def forward_loss(xb, yb):
    logits = model(xb)
    loss = criterion(logits, yb)
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
    t_last = time.time()
    for step, (xb, yb) in enumerate(wrap_epoch(train_loader, epoch), 1):
        data_time = time.time() - t_last
        optimizer.zero_grad()
        loss, acc = forward_loss(xb, yb)
        loss.backward()
        optimizer.step()
        gstep += 1
        run_loss += loss.item() * len(xb)
        run_acc += acc * len(xb)
        seen += len(xb)
        batch_time = time.time() - t_last
        on_step(epoch, step, n_steps, loss.item(), {"acc": acc, "data_time": data_time, "batch_time": batch_time},
                optimizer.param_groups[0]["lr"], gstep)
        t_last = time.time()
    val = evaluate()
    on_epoch(epoch, n_steps, {"loss": run_loss / seen, "acc": run_acc / seen}, val, time.time() - t_ep, optimizer.param_groups[0]["lr"])
on_end(time.time() - t0, {})
