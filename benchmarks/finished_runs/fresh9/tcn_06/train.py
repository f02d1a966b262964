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
CFG = dict(epochs=2, batch_size=32, lr=0.002, channels=[24, 24, 24, 24], kernel_size=3, dropout=0.1,
           n_train=1200, n_val=300, seq_len=64, clip=1.0)
import sys
from tqdm import tqdm


def log_info(msg):
    print(msg)


def progress(it, epoch, n_epochs, n_batches):
    return tqdm(it, total=n_batches, desc=f"Epoch {epoch - 1}", file=sys.stderr, ncols=110)


def on_batch(bar, loss):
    bar.set_postfix({"v_num": 0, "train_loss_step": f"{loss:.3f}"})


def log_epoch(epoch, n_epochs, m, lr):
    print(f"Epoch {epoch - 1}: " + ", ".join(f"{k}={v:.3f}" for k, v in m.items()))


def log_end(summary):
    print("`Trainer.fit` stopped: `max_epochs` reached. " + ", ".join(f"{k}={v}" for k, v in summary.items()))


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


class WindowDataset(torch.utils.data.Dataset):
    """Returns spectrally whitened windows: every channel is detrended, moved to the frequency domain with a
    DFT, divided by its magnitude envelope and transformed back (done per item, in Python)."""

    def __init__(self, x, y):
        self.x, self.y = x.tolist(), y

    def __len__(self):
        return len(self.y)

    def _whiten(self, sig):
        n = len(sig)
        mean = sum(sig) / n
        sig = [v - mean for v in sig]
        re = [sum(sig[t] * math.cos(2 * math.pi * k * t / n) for t in range(n)) for k in range(n)]
        im = [-sum(sig[t] * math.sin(2 * math.pi * k * t / n) for t in range(n)) for k in range(n)]
        mag = [math.sqrt(a * a + b * b) + 1.0 for a, b in zip(re, im)]
        re = [a / m for a, m in zip(re, mag)]
        im = [b / m for b, m in zip(im, mag)]
        out = [sum(re[k] * math.cos(2 * math.pi * k * t / n) - im[k] * math.sin(2 * math.pi * k * t / n)
                   for k in range(n)) / n for t in range(n)]
        return [v * 8.0 + s for v, s in zip(out, sig)]

    def __getitem__(self, i):
        return torch.tensor([self._whiten(ch) for ch in self.x[i]]), self.y[i]


train_ds = WindowDataset(x_train, y_train)
train_loader = DataLoader(train_ds, batch_size=CFG["batch_size"], shuffle=True)
val_loader = DataLoader(WindowDataset(x_val, y_val), batch_size=256)

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
    t_data, t_comp, t_mark = 0.0, 0.0, time.time()
    for xb, yb in bar:
        t_data += time.time() - t_mark
        t_c = time.time()
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
        t_comp += time.time() - t_c
        t_mark = time.time()
    val_loss, val_acc, val_f1 = evaluate()
    log_epoch(epoch, CFG["epochs"], {"loss": tot / n, "acc": correct / n, "val_loss": val_loss, "val_acc": val_acc,
                                     "val_f1": val_f1, "data_time_s": t_data, "compute_time_s": t_comp}, optimizer.param_groups[0]["lr"])

log_end({"val_f1": round(val_f1, 4), "final_val_acc": round(val_acc, 4), "time_s": round(time.time() - t_start, 1)})
