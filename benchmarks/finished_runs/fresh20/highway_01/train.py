"""Deep highway network classifier: 24-d tabular inputs, 5 classes given by the argmax of a fixed random two-layer
tanh teacher network on the first 12 inputs (the other 12 are distractors), 5% of labels resampled at random. A linear stem to 64 units, 10 highway layers
y = H(x) * T(x) + x * (1 - T(x)) with ReLU H and a sigmoid transform gate whose bias starts at -2 (carry behaviour
first), and a linear head; cross-entropy, SGD with momentum 0.9; validation loss and accuracy on 800 held-out rows."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "highway"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, WIDTH, DEPTH, DROPOUT = 0.05, 64, 10, 4000, 800, 64, 10, 0.0
MET = "acc"
LOSSNAME = "SoftmaxCrossEntropyLoss"
GF = "NllLossBackward0"
import datetime


def _p(msg):
    ts = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
    print(f"{ts} - mmcls - INFO - {msg}")


_tl = [time.time()]


def log_start(info):
    _p(f"workflow: [('train', 1)], max: {info['epochs']} epochs")
    _p("Checkpoints will be saved to /work_dirs/" + NAME + " by HardDiskBackend.")


def log_step(ep, i, n, loss, lr, gstep, el):
    if i % 10 == 0:
        dt = (time.time() - _tl[0]) / 10
        _tl[0] = time.time()
        eta = int(dt * ((EPOCHS - ep) * n + (n - i)))
        _p(f"Epoch [{ep}][{i}/{n}]\tlr: {lr:.3e}, eta: {datetime.timedelta(seconds=eta)}, time: {dt:.3f}, data_time: 0.001, memory: 0, loss: {loss:.4f}")


def log_epoch(ep, E, m):
    if MET == "acc":
        _p(f"Epoch(val) [{ep}][{math.ceil(N_VAL / 64)}]\taccuracy_top-1: {m['vm'] * 100:.4f}, loss: {m['vl']:.4f}")
    else:
        _p(f"Epoch(val) [{ep}][{math.ceil(N_VAL / 64)}]\trmse: {m['vm']:.4f}, loss: {m['vl']:.4f}")


def log_end(m):
    pass


gen = torch.Generator().manual_seed(21)
T1 = torch.randn(12, 16, generator=gen) / 12 ** 0.5 * 1.5
T2 = torch.randn(16, 5, generator=gen) / 16 ** 0.5 * 2.0


def make(n, noise=0.0):
    x = torch.randn(n, 24, generator=gen)
    y = (torch.tanh(x[:, :12] @ T1) @ T2).argmax(1)
    flip = torch.rand(n, generator=gen) < noise
    y = torch.where(flip, torch.randint(0, 5, (n,), generator=gen), y)
    return x, y


x_train, y_train = make(N_TRAIN, noise=0.05)
x_val, y_val = make(N_VAL)


class HighwayLayer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.h = nn.Linear(d, d)
        self.t = nn.Linear(d, d)
        nn.init.constant_(self.t.bias, -2.0)

    def forward(self, x):
        g = torch.sigmoid(self.t(x))
        return torch.relu(self.h(x)) * g + x * (1 - g)


class HighwayNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(24, WIDTH)
        self.layers = nn.Sequential(*[HighwayLayer(WIDTH) for _ in range(DEPTH)])
        self.drop = nn.Dropout(DROPOUT)
        self.head = nn.Linear(WIDTH, 5)

    def forward(self, x):
        return self.head(self.drop(self.layers(self.stem(x))))


model = HighwayNet()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
scheduler = None
steps = math.ceil(N_TRAIN / BATCH)


def train_batch(idx, epoch):
    xb, yb = x_train[idx], y_train[idx]
    optimizer.zero_grad()
    logits = model(xb)
    loss = criterion(logits, yb)
    loss.backward()
    optimizer.step()
    return loss.item(), (logits.argmax(1) == yb).float().mean().item()


def evaluate():
    model.eval()
    with torch.no_grad():
        out = model(x_val)
        vl = criterion(out, y_val).item()
        acc = (out.argmax(1) == y_val).float().mean().item()
    model.train()
    return vl, acc


n_params = sum(p.numel() for p in model.parameters())
log_start(dict(name=NAME, n_params=n_params, n_train=N_TRAIN, n_val=N_VAL, lr=LR, batch=BATCH, epochs=EPOCHS))
gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, cnt, mtot = 0.0, 0, 0.0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        loss, mb = train_batch(idx, epoch)
        gstep += 1
        tot += loss * len(idx)
        mtot += mb * len(idx)
        cnt += len(idx)
        log_step(epoch, i + 1, steps, loss, optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    if scheduler is not None:
        scheduler.step()
    tv = time.time()
    vl, vm = evaluate()
    tl = tot / cnt
    tm = mtot / cnt if MET == "acc" else math.sqrt(mtot / cnt)
    et = time.time() - te
    log_epoch(epoch, EPOCHS, dict(tl=tl, tm=tm, vl=vl, vm=vm, el=time.time() - t0, et=et, vt=time.time() - tv,
                                  lr=optimizer.param_groups[0]["lr"], gstep=gstep, nb=steps, thr=cnt / max(et, 1e-9)))
log_end(dict(vm=vm, vl=vl, el=time.time() - t0))
