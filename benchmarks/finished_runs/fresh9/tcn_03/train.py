"""Temporal convolutional network (causal dilated Conv1d blocks with weight norm, chomp and residual
connections, in the style of a TCN thesis repository) used as a window-level anomaly detector on
synthetic multichannel sensor signals: each 64-step window of 3 channels (sinusoids + noise) is labelled
anomalous when a short level shift / burst has been injected into one channel. Binary classification
from the TCN output max-pooled over time."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import weight_norm
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_num_threads(1)
import os
import json

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "config.json")) as f:
    CFG = json.load(f)
print("config:", CFG)
import time
_state = {"t0": time.time(), "nb": 1}


def _p(msg):
    print(time.strftime("%m/%d %H:%M:%S") + " - mmengine - INFO - " + msg)


def log_info(msg):
    _p(msg)


def progress(it, epoch, n_epochs, n_batches):
    _state["nb"], _state["t0"] = n_batches, time.time()
    return it


def on_batch(bar, loss):
    pass


def log_epoch(epoch, n_epochs, m, lr):
    nb = _state["nb"]
    tr = "  ".join(f"{k}: {v:.4f}" for k, v in m.items() if not k.startswith("val"))
    va = "  ".join(f"{k}: {v:.4f}" for k, v in m.items() if k.startswith("val"))
    _p(f"Epoch(train) [{epoch}][{nb}/{nb}]  lr: {lr:.4e}  time: {time.time() - _state['t0']:.4f}  {tr}")
    if va:
        _p(f"Epoch(val) [{epoch}][{nb}/{nb}]    {va}")


def log_end(summary):
    _p("  ".join(f"{k}: {v}" for k, v in summary.items()))


def make_windows(n, seq_len, g):
    t = torch.arange(seq_len).float()
    freq = 0.05 + 0.1 * torch.rand(n, 3, 1, generator=g)
    phase = 2 * math.pi * torch.rand(n, 3, 1, generator=g)
    x = torch.sin(2 * math.pi * freq * t + phase) + 0.35 * torch.randn(n, 3, seq_len, generator=g)
    y = (torch.rand(n, generator=g) < 0.5).long()
    for i in torch.nonzero(y).flatten().tolist():
        ch = int(torch.randint(0, 3, (1,), generator=g))
        start = int(torch.randint(0, seq_len - 8, (1,), generator=g))
        width = int(torch.randint(4, 9, (1,), generator=g))
        x[i, ch, start:start + width] += 1.3 * (1 if torch.rand(1, generator=g) < 0.5 else -1)
    return x, y


class Chomp1d(nn.Module):
    def __init__(self, chomp):
        super().__init__()
        self.chomp = chomp

    def forward(self, x):
        return x[:, :, :-self.chomp].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, n_in, n_out, k, dilation, dropout):
        super().__init__()
        pad = (k - 1) * dilation
        self.net = nn.Sequential(
            weight_norm(nn.Conv1d(n_in, n_out, k, padding=pad, dilation=dilation)), Chomp1d(pad), nn.ReLU(),
            nn.Dropout(dropout),
            weight_norm(nn.Conv1d(n_out, n_out, k, padding=pad, dilation=dilation)), Chomp1d(pad), nn.ReLU(),
            nn.Dropout(dropout))
        self.downsample = nn.Conv1d(n_in, n_out, 1) if n_in != n_out else None
        self.relu = nn.ReLU()

    def forward(self, x):
        res = x if self.downsample is None else self.downsample(x)
        return self.relu(self.net(x) + res)


class TCN(nn.Module):
    def __init__(self, n_in, channels, k, dropout, n_classes=2):
        super().__init__()
        blocks = []
        for i, c in enumerate(channels):
            blocks.append(TemporalBlock(n_in if i == 0 else channels[i - 1], c, k, 2 ** i, dropout))
        self.tcn = nn.Sequential(*blocks)
        self.linear = nn.Linear(channels[-1], n_classes)
        self.linear.weight.data.normal_(0, 0.01)

    def forward(self, x):
        return self.linear(self.tcn(x).amax(dim=2))


g = torch.Generator().manual_seed(1)
x_train, y_train = make_windows(CFG["n_train"], CFG["seq_len"], g)
x_val, y_val = make_windows(CFG["n_val"], CFG["seq_len"], g)
# recordings are stored grouped: all normal windows first, then the anomalous ones
order = torch.argsort(y_train, stable=True)
x_train, y_train = x_train[order], y_train[order]
train_ds = TensorDataset(x_train, y_train)
train_loader = DataLoader(train_ds, batch_size=CFG["batch_size"], shuffle=False)
val_loader = DataLoader(TensorDataset(x_val, y_val), batch_size=256)

model = TCN(3, CFG["channels"], CFG["kernel_size"], CFG["dropout"])
optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
log_info(f"train windows {len(train_ds)} (anomalous {y_train.float().mean():.2f}) | val {len(y_val)} | "
         f"TCN channels {CFG['channels']} k={CFG['kernel_size']} receptive field "
         f"{1 + 2 * (CFG['kernel_size'] - 1) * (2 ** len(CFG['channels']) - 1)} | params {sum(p.numel() for p in model.parameters())}")


def evaluate():
    model.eval()
    tot, correct, n, tp, fp, fn = 0.0, 0, 0, 0, 0, 0
    with torch.no_grad():
        for xb, yb in val_loader:
            out = model(xb)
            tot += F.cross_entropy(out, yb, reduction="sum").item()
            pred = out.argmax(1)
            correct += (pred == yb).sum().item()
            tp += ((pred == 1) & (yb == 1)).sum().item()
            fp += ((pred == 1) & (yb == 0)).sum().item()
            fn += ((pred == 0) & (yb == 1)).sum().item()
            n += len(yb)
    f1 = 2 * tp / max(1, 2 * tp + fp + fn)
    return tot / n, correct / n, f1


t_start = time.time()
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    tot, correct, n = 0.0, 0, 0
    bar = progress(train_loader, epoch, CFG["epochs"], len(train_loader))
    for xb, yb in bar:
        optimizer.zero_grad()
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CFG["clip"])
        optimizer.step()
        tot += loss.item() * len(yb)
        correct += (out.argmax(1) == yb).sum().item()
        n += len(yb)
        on_batch(bar, loss.item())
    val_loss, val_acc, val_f1 = evaluate()
    log_epoch(epoch, CFG["epochs"], {"loss": tot / n, "acc": correct / n, "val_loss": val_loss, "val_acc": val_acc,
                                     "val_f1": val_f1}, optimizer.param_groups[0]["lr"])

log_end({"val_f1": round(val_f1, 4), "final_val_acc": round(val_acc, 4), "time_s": round(time.time() - t_start, 1)})
