"""(2+1)-D convolutional video classifier (R(2+1)D style, Tran et al. 2018) on synthetic clips of a moving blob.
Each clip is 8 frames of 12x12 pixels: a Gaussian blob (sd 1.5 px) that moves one pixel per frame right, left,
down or up, or stays still (5 classes), a static distractor blob of half the brightness, and pixel noise sd 1.0;
5% of the training labels are resampled at random. The training clips are generated class by class and fed to the
model in batches of 32. Model: two (2+1)-D blocks (a 1x3x3 spatial conv and a 3x1x1 temporal conv, each
followed by BatchNorm and ReLU; 12 then 24 channels) with max pooling, global average pooling and a linear head.
Adam, cross-entropy, validation accuracy (chance 0.20)."""
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
NAME = "r21d"
MET = "val_acc"
HIGHER = True
LR, WEIGHT_DECAY, BATCH, EPOCHS = 2e-3, 0.0, 32, 10
N_TRAIN, N_VAL, FRAMES, SIZE, NCLS = 1200, 400, 8, 12, 5
LABEL_NOISE = 0.05
N_BATCHES = N_TRAIN // BATCH
LOG_EVERY = 15

def log_start(info):
    print(f"~~~ :python: setting up {info['name']} ({info['n_params']} params)")


def log_step(ep, i, n, loss):
    print(f"step {i}/{n} loss {loss:.4f}")


def log_epoch(ep, E, m):
    if m["prev_vl"] is not None and m["vl"] > m["prev_vl"]:
        print(f"^^^ +++")
        print(f"+++ :warning: epoch {ep}/{E}: val_loss went up")
    else:
        print(f"--- :white_check_mark: epoch {ep}/{E}")
    print(f"train_loss {m['tl']:.4f} val_loss {m['vl']:.4f} {MET} {m['vm']:.4f} ({m['secs']:.1f}s)")
    if ep < E:
        print(f"--- :fire: epoch {ep + 1}/{E}")


def log_end(m):
    print(f"--- :checkered_flag: done, best {MET} {m['best']:.4f}")

def run_epochs(model, opt, train_batches, evaluate, step_fn, n_train, n_val):
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"name": NAME, "n_params": n_params, "n_train": n_train, "n_val": n_val, "lr": LR, "batch": BATCH,
               "epochs": EPOCHS})
    t_start = time.time()
    best = None
    prev_vl = None
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb = 0.0, 0
        data_secs = 0.0
        t_fetch = time.time()
        batches = train_batches()
        for i, batch in enumerate(batches, 1):
            data_secs += time.time() - t_fetch
            loss = step_fn(batch, ep)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, N_BATCHES, loss)
            t_fetch = time.time()
        model.eval()
        with torch.no_grad():
            vl, vm = evaluate()
        if best is None or (vm > best if HIGHER else vm < best):
            best = vm
        m = {"tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb, "data_secs": data_secs}
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
        after_epoch()
    m["el"] = time.time() - t_start
    log_end(m)


gen = torch.Generator().manual_seed(5)
STEPS = torch.tensor([[0, 1], [0, -1], [1, 0], [-1, 0], [0, 0]]).float()


def make_class(c, n):
    yy, xx = torch.meshgrid(torch.arange(SIZE).float(), torch.arange(SIZE).float(), indexing="ij")
    start = 4 + 4 * torch.rand(n, 2, generator=gen)
    t = torch.arange(FRAMES).float().view(1, FRAMES, 1)
    centre = start.unsqueeze(1) + (t - FRAMES / 2) * STEPS[c].view(1, 1, 2)
    cy, cx = centre[..., 0].view(n, FRAMES, 1, 1), centre[..., 1].view(n, FRAMES, 1, 1)
    blob = torch.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * 1.5 ** 2))
    d = 2 + 8 * torch.rand(n, 2, generator=gen)
    dy, dx = d[:, 0].view(n, 1, 1, 1), d[:, 1].view(n, 1, 1, 1)
    distractor = 0.5 * torch.exp(-((yy - dy) ** 2 + (xx - dx) ** 2) / (2 * 1.5 ** 2))
    clip = blob + distractor + 1.0 * torch.randn(n, FRAMES, SIZE, SIZE, generator=gen)
    return clip.unsqueeze(1), torch.full((n,), c, dtype=torch.long)


def make_split(n):
    parts = [make_class(c, n // NCLS) for c in range(NCLS)]
    return torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])


x_train, y_train = make_split(N_TRAIN)
x_val, y_val = make_split(N_VAL)
flip = torch.rand(N_TRAIN, generator=gen) < LABEL_NOISE
y_train[flip] = torch.randint(0, NCLS, (int(flip.sum()),), generator=gen)


class R21Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.spatial = nn.Conv3d(cin, cout, (1, 3, 3), padding=(0, 1, 1))
        self.bn1 = nn.BatchNorm3d(cout)
        self.temporal = nn.Conv3d(cout, cout, (3, 1, 1), padding=(1, 0, 0))
        self.bn2 = nn.BatchNorm3d(cout)

    def forward(self, x):
        x = F.relu(self.bn1(self.spatial(x)))
        return F.relu(self.bn2(self.temporal(x)))


class R21D(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([R21Block(1, 12), R21Block(12, 24)])
        self.pools = [nn.MaxPool3d((1, 2, 2)), nn.MaxPool3d((2, 2, 2))]
        self.head = nn.Linear(24, NCLS)

    def forward(self, x):
        for block, pool in zip(self.blocks, self.pools):
            x = pool(block(x))
        return self.head(x.mean((2, 3, 4)))


model = R21D()
opt = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
loss_fn = nn.CrossEntropyLoss()


def train_batches():
    perm = torch.arange(N_TRAIN)
    for k in range(0, N_TRAIN - BATCH + 1, BATCH):
        idx = perm[k:k + BATCH]
        yield x_train[idx], y_train[idx]


def step_fn(batch, ep):
    xb, yb = batch
    opt.zero_grad()
    loss = loss_fn(model(xb), yb)
    loss.backward()
    opt.step()
    return loss.item()


def evaluate():
    logits = model(x_val)
    return loss_fn(logits, y_val).item(), (logits.argmax(1) == y_val).float().mean().item()


def after_epoch():
    pass


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
