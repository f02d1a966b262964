"""Heatmap keypoint localiser on synthetic 16x16 images: each image holds one landmark (a plus-shaped cross of random
brightness 0.6-1.0) and a distractor (a 2x2 bright square) under pixel noise sd 0.3. A fully convolutional net
(conv-BN-ReLU x3 with a dilated layer, then a 1x1 conv) outputs one logit per pixel; the loss is cross-entropy of
the spatial softmax over the 256 positions against the landmark centre. Metric: mean pixel distance between the
argmax of the heatmap and the true centre (px_err, lower is better) on 600 held-out images (3000 training images)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "keypoint"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, CH = 0.001, 8, 5, 3000, 600, 16
S = 16
MET = "px_err"
HIGHER = False



def log_start(info):
    print(f"ਸਿਖਲਾਈ ਸ਼ੁਰੂ: ਮਾਡਲ={info['name']} ਪੈਰਾਮੀਟਰ={info['n_params']} ਬੈਚ={info['batch']} ਸਿੱਖਣ ਦਰ={info['lr']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    if i % 10 == 0:
        print(f"  ਕਦਮ {i:>3}/{n}  ਨੁਕਸਾਨ {loss:.4f}")


def log_epoch(ep, E, m):
    print(f"ਯੁੱਗ {ep}/{E} ਪੂਰਾ — ਸਿਖਲਾਈ ਨੁਕਸਾਨ {m['tl']:.4f}, ਪ੍ਰਮਾਣਿਕਤਾ ਨੁਕਸਾਨ {m['vl']:.4f}, "
          f"ਪ੍ਰਮਾਣਿਕਤਾ {MET} {m['vm']:.3f} ਪਿਕਸਲ")


def log_end(m):
    print(f"ਸਿਖਲਾਈ ਪੂਰੀ ਹੋਈ ({m['el']:.0f} ਸਕਿੰਟ)")


gen = torch.Generator().manual_seed(5)


def make(n):
    img = 0.3 * torch.randn(n, 1, S, S, generator=gen)
    cy = torch.randint(1, S - 1, (n,), generator=gen)
    cx = torch.randint(1, S - 1, (n,), generator=gen)
    amp = 0.6 + 0.4 * torch.rand(n, generator=gen)
    dy = torch.randint(0, S - 1, (n,), generator=gen)
    dx = torch.randint(0, S - 1, (n,), generator=gen)
    for j in range(n):
        y0, x0 = cy[j].item(), cx[j].item()
        for oy, ox in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
            img[j, 0, y0 + oy, x0 + ox] += amp[j]
        img[j, 0, dy[j]:dy[j] + 2, dx[j]:dx[j] + 2] += 0.9
    target = cy * S + cx
    return img, target


x_train, y_train = make(N_TRAIN)
x_val, y_val = make(N_VAL)


class HeatmapNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, CH, 3, padding=1), nn.BatchNorm2d(CH), nn.ReLU(),
            nn.Conv2d(CH, CH, 3, padding=1), nn.BatchNorm2d(CH), nn.ReLU(),
            nn.Conv2d(CH, CH, 3, padding=2, dilation=2), nn.BatchNorm2d(CH), nn.ReLU(),
            nn.Conv2d(CH, 1, 1))

    def forward(self, x):
        return self.body(x).flatten(1)


def px_err(logits, t):
    p = logits.argmax(1)
    return torch.sqrt(((p // S - t // S).float() ** 2 + (p % S - t % S).float() ** 2)).mean().item()


model = HeatmapNet()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
scheduler = None
steps = math.ceil(N_TRAIN / BATCH)


def train_batch(idx, epoch):
    xb, yb = x_train[idx], y_train[idx]
    optimizer.zero_grad()
    logits = model(xb)
    loss = criterion(logits, yb)
    loss.backward()
    optimizer.step()
    return loss.item(), px_err(logits.detach(), yb)


@torch.no_grad()
def evaluate():
    model.eval()
    logits = model(x_val)
    vl = criterion(logits, y_val).item()
    model.train()
    return vl, px_err(logits, y_val)


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
    tm = mtot / cnt
    et = time.time() - te
    log_epoch(epoch, EPOCHS, dict(tl=tl, tm=tm, vl=vl, vm=vm, el=time.time() - t0, et=et, vt=time.time() - tv,
                                  lr=optimizer.param_groups[0]["lr"], gstep=gstep, nb=steps, thr=cnt / max(et, 1e-9)))
log_end(dict(vm=vm, vl=vl, el=time.time() - t0))
