import math
import time
import datetime
import logging
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
SEED = 2417
torch.manual_seed(SEED)
np.random.seed(SEED)

# ---------------- config ----------------
H = W = 10
T_IN = 5
N_TRAIN, N_VAL = 320, 100
BATCH = 16
EPOCHS = 8
LR = 5e-3
HID = 12
CLIP = 1.0

# ---------------- data: bouncing blobs ----------------
def make_videos(n, rng):
    vids = np.zeros((n, T_IN + 1, 1, H, W), dtype=np.float32)
    yy, xx = np.mgrid[0:H, 0:W]
    for i in range(n):
        k = rng.randint(1, 3)
        for _ in range(k):
            py, px = rng.uniform(2, H - 3), rng.uniform(2, W - 3)
            vy, vx = rng.uniform(-1.2, 1.2), rng.uniform(-1.2, 1.2)
            r = rng.uniform(1.0, 1.8)
            for t in range(T_IN + 1):
                blob = np.exp(-((yy - py) ** 2 + (xx - px) ** 2) / (2 * r * r))
                vids[i, t, 0] = np.maximum(vids[i, t, 0], blob)
                py += vy
                px += vx
                if py < 1 or py > H - 2:
                    vy = -vy
                    py = min(max(py, 1), H - 2)
                if px < 1 or px > W - 2:
                    vx = -vx
                    px = min(max(px, 1), W - 2)
    vids += rng.normal(0, 0.03, vids.shape).astype(np.float32)
    return np.clip(vids, 0, 1)

rng = np.random.RandomState(SEED)
train_v = torch.from_numpy(make_videos(N_TRAIN, rng))
val_v = torch.from_numpy(make_videos(N_VAL, rng))
x_train, y_train = train_v[:, :T_IN], train_v[:, T_IN]
x_val, y_val = val_v[:, :T_IN], val_v[:, T_IN]

# ---------------- model ----------------
class ConvLSTMCell(nn.Module):
    def __init__(self, cin, hid):
        super().__init__()
        self.hid = hid
        self.conv = nn.Conv2d(cin + hid, 4 * hid, 3, padding=1)

    def forward(self, x, state):
        h, c = state
        g = self.conv(torch.cat([x, h], 1))
        i, f, o, u = torch.chunk(g, 4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(u)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c

class FramePredictor(nn.Module):
    def __init__(self, hid=HID):
        super().__init__()
        self.enc = nn.Conv2d(1, 8, 3, padding=1)
        self.cell1 = ConvLSTMCell(8, hid)
        self.cell2 = ConvLSTMCell(hid, hid)
        self.head = nn.Conv2d(hid, 1, 1)

    def forward(self, x):
        b = x.shape[0]
        z = torch.zeros(b, self.cell1.hid, H, W)
        s1, s2 = (z, z), (z, z)
        for t in range(x.shape[1]):
            e = F.relu(self.enc(x[:, t]))
            s1 = self.cell1(e, s1)
            s2 = self.cell2(s1[0], s2)
        return torch.sigmoid(self.head(s2[0]))

model = FramePredictor()
opt = torch.optim.Adam(model.parameters(), lr=LR)
crit = nn.MSELoss()
n_params = sum(p.numel() for p in model.parameters())

DISPLAY_INTERVAL = 20

def log_begin(info):
    print('Initializing models')
    print(datetime.datetime.now().strftime('%Y-%m-%d %H:%M:%S'), 'start training: %d sequences, batch %d, lr %g' % (info["train"], info["batch"], info["lr"]))

def log_iter(epoch, it, nb, gstep, total, loss, lr, elapsed):
    if gstep % DISPLAY_INTERVAL == 0:
        print(datetime.datetime.now().strftime('%Y-%m-%d %H:%M:%S'), 'itr: ' + str(gstep))
        print('training loss: ' + str(np.float32(loss)))

def log_epoch(epoch, E, tr, va, secs, gstep, total):
    print(datetime.datetime.now().strftime('%Y-%m-%d %H:%M:%S'), 'test...')
    print('mse per seq: ' + str(np.float32(va["mse_per_seq"])))
    print(str(np.float32(va["mse_per_seq"])))
    print('psnr per frame: ' + str(np.float32(va["psnr"])))
    print(str(np.float32(va["psnr"])))

def log_end(va):
    print(datetime.datetime.now().strftime('%Y-%m-%d %H:%M:%S'), 'saving model to checkpoints/model.ckpt-' + str(EPOCHS * (N_TRAIN // BATCH)))


def evaluate():
    model.eval()
    with torch.no_grad():
        pred = model(x_val)
        mse = crit(pred, y_val).item()
        per_seq = ((pred - y_val) ** 2).sum(dim=(1, 2, 3)).mean().item()
    model.train()
    psnr = 10 * math.log10(1.0 / mse) if 0 < mse < float("inf") else float("nan")
    return {"mse": mse, "mse_per_seq": per_seq, "psnr": psnr}

steps_per_epoch = N_TRAIN // BATCH
total_steps = EPOCHS * steps_per_epoch
log_begin({"params": n_params, "train": N_TRAIN, "val": N_VAL, "batch": BATCH, "lr": LR, "epochs": EPOCHS})
gstep = 0
t0 = time.time()
for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(N_TRAIN)
    losses = []
    te = time.time()
    for it in range(steps_per_epoch):
        idx = perm[it * BATCH:(it + 1) * BATCH]
        xb, yb = x_train[idx], y_train[idx]
        opt.zero_grad()
        pred = model(xb)
        loss = crit(pred, yb)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        opt.step()
        losses.append(loss.item())
        gstep += 1
        log_iter(epoch, it, steps_per_epoch, gstep, total_steps, loss.item(), opt.param_groups[0]["lr"], time.time() - t0)
    va = evaluate()
    log_epoch(epoch, EPOCHS, {"loss": float(np.mean(losses))}, va, time.time() - te, gstep, total_steps)
log_end(va)
