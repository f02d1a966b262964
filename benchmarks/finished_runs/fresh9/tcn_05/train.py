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
CFG = dict(epochs=40, batch_size=32, lr=0.002, channels=[48, 48, 48, 48], kernel_size=3, dropout=0.0,
           n_train=160, n_val=600, seq_len=64, clip=1.0)
def log_info(msg):
    print(msg)


def progress(it, epoch, n_epochs, n_batches):
    return it


def on_batch(bar, loss):
    pass


def log_epoch(epoch, n_epochs, m, lr):
    d = {k: round(v, 4) for k, v in m.items()}
    d["learning_rate"] = lr
    d["epoch"] = float(epoch)
    print(d)


def log_end(summary):
    print({"train_runtime": summary.pop("time_s", 0.0), **summary})


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
train_ds = TensorDataset(x_train, y_train)
train_loader = DataLoader(train_ds, batch_size=CFG["batch_size"], shuffle=True)
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
