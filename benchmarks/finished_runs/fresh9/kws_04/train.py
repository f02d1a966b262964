"""Keyword spotter in the style of a PyTorch audio keyword-spotting tutorial: a GRU over MFCC frames whose
last hidden state feeds a linear classifier, trained with SGD + momentum and gradient-norm clipping.
Data: synthetic MFCC sequences (13 coefficients in dB-like units incl. c0 = frame log-energy, up to 40 frames) for 6 classes
(4 keywords, 'unknown', 'silence'); each keyword is a smooth template trajectory, randomly time-warped, with a
speaker offset, noise and variable length (short clips are zero-energy padded at the end). Features are
standardised with the training set's mean/std."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
CFG = dict(epochs=12, batch_size=64, lr=0.0005, momentum=0.9, clip_norm=5.0, hidden=64, n_train=3000, n_val=600,
           frames=40, n_mfcc=13, warmup_epochs=0, cosine=True)
import time
_state = {"t0": 0.0, "nb": None}


def log_info(msg):
    print(msg)


def progress(it, epoch, n_epochs, n_batches):
    print(f"Epoch {epoch}/{n_epochs}")
    _state["t0"], _state["nb"] = time.time(), n_batches
    return it


def on_batch(bar, loss):
    pass


def log_epoch(epoch, n_epochs, m, lr):
    nb, dt = _state["nb"] or 1, time.time() - _state["t0"]
    s = " - ".join(f"{k}: {v:.4f}" for k, v in m.items())
    print(f"{nb}/{nb} [==============================] - {dt:.0f}s {1000 * dt / nb:.0f}ms/step - {s}")


def log_end(summary):
    print(" - ".join(f"{k}: {v}" for k, v in summary.items()))

N_CLASSES = 6
LABELS = ["yes", "no", "up", "down", "unknown", "silence"]


def make_templates(n_mfcc, g):
    t = torch.linspace(0, 1, 64)
    templates = torch.zeros(N_CLASSES, n_mfcc - 1, 64)
    for k in range(4):
        for c in range(n_mfcc - 1):
            a, f, p = torch.randn(3, generator=g)
            templates[k, c] = 6 * a * torch.sin(2 * math.pi * (0.6 + 0.6 * f.abs()) * t + 3 * p)
    return templates


def make_mfcc(n, g, templates, frames, n_mfcc):
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    feats = torch.zeros(n, frames, n_mfcc)
    lengths = torch.randint(24, frames + 1, (n,), generator=g)
    for i in range(n):
        L = int(lengths[i])
        warp = torch.linspace(0, 1, L) ** (0.7 + 0.6 * torch.rand(1, generator=g))
        pos = (warp * 63).long()
        if y[i] < 4:
            ceps = templates[y[i]][:, pos]
            energy = torch.exp(torch.tensor(3.0) + 1.2 * torch.sin(math.pi * warp))
        elif y[i] == 4:
            other = templates[int(torch.randint(0, 4, (1,), generator=g))]
            ceps = 0.7 * other[:, pos.flip(0)] + 4 * torch.randn(n_mfcc - 1, 1, generator=g)
            energy = torch.exp(torch.tensor(3.0) + 1.2 * torch.sin(math.pi * warp))
        else:
            ceps = torch.zeros(n_mfcc - 1, L)
            energy = torch.full((L,), 0.05)
        ceps = ceps + 3 * torch.randn(n_mfcc - 1, 1, generator=g) + 2.5 * torch.randn(n_mfcc - 1, L, generator=g)
        energy = energy * (0.5 + torch.rand(1, generator=g)) * 1000.0
        c0 = torch.log(torch.cat([energy, torch.zeros(frames - L)]) + 1e-6)
        feats[i, :, 0] = 20 * c0 / math.log(10)
        feats[i, :L, 1:] = 8 * ceps.t()
    return feats, y


class KWS(nn.Module):
    def __init__(self, n_mfcc, hidden):
        super().__init__()
        self.gru = nn.GRU(n_mfcc, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, N_CLASSES)

    def forward(self, x):
        _, h = self.gru(x)
        return self.fc(h[-1])


g = torch.Generator().manual_seed(5)
templates = make_templates(CFG["n_mfcc"], g)
x_train, y_train = make_mfcc(CFG["n_train"], g, templates, CFG["frames"], CFG["n_mfcc"])
x_val, y_val = make_mfcc(CFG["n_val"], g, templates, CFG["frames"], CFG["n_mfcc"])
mean, std = x_train.mean(dim=(0, 1)), x_train.std(dim=(0, 1))
x_train = (x_train - mean) / std
x_val = (x_val - mean) / std

model = KWS(CFG["n_mfcc"], CFG["hidden"])
optimizer = torch.optim.SGD(model.parameters(), lr=CFG["lr"], momentum=CFG["momentum"])
steps_per_epoch = math.ceil(CFG["n_train"] / CFG["batch_size"])
total_steps, warm_steps = CFG["epochs"] * steps_per_epoch, CFG["warmup_epochs"] * steps_per_epoch


def lr_at(step):
    if step < warm_steps:
        return CFG["lr"] * (step + 1) / warm_steps
    if not CFG["cosine"]:
        return CFG["lr"]
    return 0.5 * CFG["lr"] * (1 + math.cos(math.pi * (step - warm_steps) / max(1, total_steps - warm_steps)))


log_info(f"keywords {LABELS} | train {len(y_train)} val {len(y_val)} | frames {CFG['frames']} x {CFG['n_mfcc']} mfcc "
         f"| GRU hidden {CFG['hidden']} | SGD lr {CFG['lr']} momentum {CFG['momentum']} clip {CFG['clip_norm']}")

step = 0
t_start = time.time()
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    perm = torch.randperm(len(y_train))
    tot, correct = 0.0, 0
    batches = [perm[i:i + CFG["batch_size"]] for i in range(0, len(perm), CFG["batch_size"])]
    bar = progress(batches, epoch, CFG["epochs"], len(batches))
    for idx in bar:
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step)
        xb, yb = x_train[idx], y_train[idx]
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), CFG["clip_norm"])
        optimizer.step()
        step += 1
        tot += loss.item() * len(idx)
        correct += (out.argmax(1) == yb).sum().item()
        on_batch(bar, loss.item())
    model.eval()
    with torch.no_grad():
        out = model(x_val)
        val_loss = F.cross_entropy(out, y_val).item()
        val_acc = (out.argmax(1) == y_val).float().mean().item()
    log_epoch(epoch, CFG["epochs"], {"train_loss": tot / len(y_train), "train_acc": correct / len(y_train),
                                     "val_loss": val_loss, "val_acc": val_acc}, optimizer.param_groups[0]["lr"])

log_end({"epochs": CFG["epochs"], "val_accuracy": round(val_acc, 4), "time_s": round(time.time() - t_start, 1)})
