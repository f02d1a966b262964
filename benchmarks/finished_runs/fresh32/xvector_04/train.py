"""x-vector style speaker identification (Snyder et al. 2018) on synthetic log-mel spectrograms.
Each of 10 speakers has a spectral envelope (three formant-like Gaussian bumps over 24 mel bins at speaker-specific
positions, widths and heights) and a pitch-harmonic ripple; an utterance is 48 frames of that envelope modulated
by a random syllable-rate amplitude pattern, plus a random channel tilt and log-domain noise, so single frames are
ambiguous and the network has to pool over time. Model: a TDNN (dilated Conv1d over frames: 24->64 k5, 64->64 k3
d2, 64->64 k3 d3, 64->96 k1) with ReLU and BatchNorm, statistics pooling (mean and standard deviation over
frames), a 192->64 embedding layer, dropout and a 64->10 classifier trained with cross-entropy; validation
speaker accuracy on held-out utterances (chance 0.10).
"""
import math
import random
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
random.seed(0)
N_SPK, N_MEL, N_FR = 10, 24, 48
N_TRAIN, N_VAL = 2400, 500
LR, BATCH, EPOCHS = 0.3, 64, 6
DROPOUT = 0.3

g = torch.Generator().manual_seed(7)
mel = torch.arange(N_MEL).float()
CENTRES = torch.rand(N_SPK, 3, generator=g) * (N_MEL - 4) + 2
WIDTHS = 1.0 + 2.0 * torch.rand(N_SPK, 3, generator=g)
HEIGHTS = 0.5 + 0.6 * torch.rand(N_SPK, 3, generator=g)
PITCH = 1.5 + 2.0 * torch.rand(N_SPK, generator=g)
ENV = (HEIGHTS[:, :, None] * torch.exp(-0.5 * ((mel[None, None, :] - CENTRES[:, :, None]) / WIDTHS[:, :, None]) ** 2)).sum(1)
ENV = ENV + 0.3 * torch.cos(2 * math.pi * mel[None, :] / PITCH[:, None])


def utterances(n, n_fr=N_FR):
    spk = torch.randint(0, N_SPK, (n,), generator=g)
    t = torch.arange(n_fr).float()
    rate = 0.15 + 0.25 * torch.rand(n, 1, generator=g)
    phase = 2 * math.pi * torch.rand(n, 1, generator=g)
    amp = 0.5 + 0.5 * torch.sin(rate * t[None, :] + phase)
    tilt = (torch.rand(n, 1, generator=g) - 0.5) * 0.15 * (mel[None, :] - N_MEL / 2)
    x = ENV[spk][:, :, None] * amp[:, None, :] + tilt[:, :, None]
    x = x + 2.0 * torch.randn(n, N_MEL, n_fr, generator=g)
    return x, spk


Xtr, Ytr = utterances(N_TRAIN)
Xva, Yva = utterances(N_VAL)
mu, sd = Xtr.mean(dim=(0, 2), keepdim=True), Xtr.std(dim=(0, 2), keepdim=True)
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd
N_BATCHES = math.ceil(N_TRAIN / BATCH)


class TDNN(nn.Module):
    def __init__(self, n_spk=N_SPK, p=DROPOUT):
        super().__init__()
        self.frames = nn.Sequential(
            nn.Conv1d(N_MEL, 64, 5), nn.ReLU(),
            nn.Conv1d(64, 64, 3, dilation=2), nn.ReLU(),
            nn.Conv1d(64, 64, 3, dilation=3), nn.ReLU(),
            nn.Conv1d(64, 96, 1), nn.ReLU(),
        )
        self.segment = nn.Linear(192, 64)
        self.drop = nn.Dropout(p)
        self.out = nn.Linear(64, n_spk)

    def forward(self, x):
        h = self.frames(x)
        stats = torch.cat([h.mean(dim=2), h.std(dim=2)], dim=1)
        emb = F.relu(self.segment(stats))
        return self.out(self.drop(emb))


model = TDNN()
opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
LOG_EVERY = 1


def _bar(i, n, w=30):
    if i >= n:
        return "=" * w
    k = int(w * i / n)
    return "=" * max(k - 1, 0) + ">" + "." * (w - k)


def log_start(info):
    print(f"Train on {info['n_train']} samples, validate on {info['n_val']} samples")


_sum = [0.0, 0.0, 0]


def log_step(ep, i, n, loss, lr, extra):
    if i == 1:
        print(f"Epoch {ep}/{EPOCHS}")
        _sum[:] = [0.0, 0.0, 0]
    _sum[0] += loss
    _sum[1] += extra["acc"]
    _sum[2] += 1
    if i < n:
        sys.stdout.write(f"\r{i * BATCH:4d}/{N_TRAIN} [{_bar(i, n)}] - ETA: {int(extra['iter_time'] * (n - i))}s - loss: {_sum[0] / _sum[2]:.4f} - accuracy: {_sum[1] / _sum[2]:.4f}")


def log_epoch(ep, E, m):
    sys.stdout.write(f"\r{N_TRAIN}/{N_TRAIN} [{_bar(1, 1)}] - {int(m['secs'])}s {int(1e6 * m['secs'] / N_TRAIN)}us/sample - loss: {m['tl']:.4f} - accuracy: {m['ta']:.4f} - val_loss: {m['vl']:.4f} - val_accuracy: {m['vm']:.4f}\n")


def log_end(m, hist):
    pass


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for i in range(0, N_TRAIN, BATCH):
        idx = perm[i:i + BATCH]
        yield Xtr[idx], Ytr[idx]


def step_fn(batch):
    x, y = batch
    opt.zero_grad()
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    acc = (logits.argmax(1) == y).float().mean().item()
    return loss.item(), {"acc": acc}


def evaluate():
    logits = model(Xva)
    vl = F.cross_entropy(logits, Yva).item()
    acc = (logits.argmax(1) == Yva).float().mean().item()
    return vl, acc


def run_epochs():
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"n_params": n_params, "n_train": N_TRAIN, "n_val": N_VAL, "lr": LR, "batch": BATCH, "epochs": EPOCHS,
               "n_batches": N_BATCHES})
    t_start = time.time()
    best = None
    step = 0
    hist = []
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb, accs = 0.0, 0, 0.0
        t_data = 0.0
        t_last = time.time()
        for i, batch in enumerate(train_batches(), 1):
            t_data += time.time() - t_last
            loss, extra = step_fn(batch)
            step += 1
            tot += loss
            nb += 1
            accs += extra.get("acc", 0.0)
            if i % LOG_EVERY == 0 or i == N_BATCHES:
                extra = dict(extra)
                extra.update({"step": step, "elapsed": time.time() - t_start, "data_time": t_data / i,
                              "iter_time": (time.time() - t0) / i})
                log_step(ep, i, N_BATCHES, loss, opt.param_groups[0]["lr"], extra)
            t_last = time.time()
        model.eval()
        with torch.no_grad():
            res = evaluate()
        vl, vm = res[0], res[1]
        improved = best is None or vm > best
        if improved:
            best = vm
        m = {"ep": ep, "tl": tot / nb, "ta": accs / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"],
             "secs": time.time() - t0, "el": time.time() - t_start, "best": best, "improved": improved, "step": step,
             "nb": nb}
        if len(res) > 2:
            m.update(res[2])
        hist.append(m)
        log_epoch(ep, EPOCHS, m)
    log_end(m, hist)


run_epochs()
