"""CNN-LSTM video classifier on synthetic clips: each clip is 8 frames of 12x12 pixels in which a bright 3x3 square
moves one pixel per frame (wrapping at the borders) right, left, down or up, the class; a static dimmer square
distracts and every pixel carries Gaussian noise (sd 0.5); 6% of the labels are resampled at random. A shared
per-frame CNN (3x3 conv + ReLU + 2x2 max-pool, 3x3 conv + ReLU, 16 x 6 x 6 features, a linear projection to 48 with tanh) feeds an
LSTM with 48 hidden units whose last state goes to a 4-way linear classifier; cross-entropy, Adam; accuracy on 240
held-out clips."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "cnnlstm"
LR, BATCH, EPOCHS, N_TRAIN, T = 2e-3, 32, 12, 960, 8
AMP, NOISE = 2.0, 0.5
MET = "acc"
def _tp(src):
    return time.strftime("[%m%d %H:%M:%S") + f" @{src}]"


def log_start(info):
    print(f"{_tp('logger.py:90')} Argv: train.py")
    print(f"{_tp('model_utils.py:67')} Trainable Variables: total #vars={info['n_layers']}, #params={info['n_params']}")
    print(f"{_tp('base.py:273')} Start Epoch 1 ...")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    print(f"{_tp('base.py:283')} Epoch {ep} (global_step {m['gstep']}) finished, time:{m['et']:.2f} seconds.")
    print(f"{_tp('monitor.py:474')} QueueInput/queue_size: 50")
    print(f"{_tp('monitor.py:474')} cross_entropy_loss: {m['tl']:.5g}")
    print(f"{_tp('monitor.py:474')} learning_rate: {m['lr']:.3g}")
    print(f"{_tp('monitor.py:474')} validation_accuracy: {m['vm']:.5g}")
    print(f"{_tp('monitor.py:474')} validation_cross_entropy_loss: {m['vl']:.5g}")
    if ep < E:
        print(f"{_tp('base.py:273')} Start Epoch {ep + 1} ...")


def log_end(m):
    print(f"{_tp('base.py:287')} Training has finished!")

gen = torch.Generator().manual_seed(11)
DIRS = [(0, 1), (0, -1), (1, 0), (-1, 0)]


def make_clips(n):
    y = torch.randint(0, 4, (n,), generator=gen)
    clips = NOISE * torch.randn(n, T, 1, 12, 12, generator=gen)
    for k in range(n):
        r, c = torch.randint(0, 12, (2,), generator=gen).tolist()
        dr, dc = torch.randint(0, 12, (2,), generator=gen).tolist()
        vy, vx = DIRS[y[k]]
        for t in range(T):
            rr, cc = [(r + vy * t + j) % 12 for j in range(3)], [(c + vx * t + j) % 12 for j in range(3)]
            for a in rr:
                clips[k, t, 0, a, cc] += AMP
            clips[k, t, 0, dr:dr + 3, dc:dc + 3] += 0.8
    flip = torch.rand(n, generator=gen) < 0.06
    y = torch.where(flip, torch.randint(0, 4, (n,), generator=gen), y)
    return clips, y


x_train, y_train = make_clips(N_TRAIN)
x_val, y_val = make_clips(240)


class CNNLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                 nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
                                 nn.Flatten(), nn.Linear(576, 48), nn.Tanh())
        self.lstm = nn.LSTM(48, 48, batch_first=True)
        self.fc = nn.Linear(48, 4)

    def forward(self, x):
        b = x.shape[0]
        f = self.cnn(x.reshape(b * T, 1, 12, 12)).reshape(b, T, 48)
        out, _ = self.lstm(f)
        return self.fc(out[:, -1])


model = CNNLSTM()
for p in model.cnn.parameters():
    p.requires_grad = False
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
steps = math.ceil(N_TRAIN / BATCH)


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(x_val)
        vl = criterion(logits, y_val).item()
        acc = (logits.argmax(1) == y_val).float().mean().item()
    model.train()
    return vl, acc


n_params = sum(p.numel() for p in model.parameters())
log_start(dict(name=NAME, n_params=n_params, n_train=N_TRAIN, n_val=240, lr=LR, batch=BATCH, epochs=EPOCHS, n_layers=len(list(model.parameters()))))
gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, cor, cnt = 0.0, 0, 0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        xb, yb = x_train[idx], y_train[idx]
        optimizer.zero_grad()
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        cor += (logits.argmax(1) == yb).sum().item()
        cnt += len(idx)
        log_step(epoch, i + 1, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    tv = time.time()
    vl, acc = evaluate()
    et = time.time() - te
    log_epoch(epoch, EPOCHS, dict(tl=tot / cnt, tm=cor / cnt, vl=vl, vm=acc, el=time.time() - t0, et=et,
                                  vt=time.time() - tv, lr=optimizer.param_groups[0]["lr"], gstep=gstep, nb=steps,
                                  thr=cnt / max(et, 1e-9)))
log_end(dict(vm=acc, vl=vl, el=time.time() - t0))
