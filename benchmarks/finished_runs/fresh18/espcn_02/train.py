"""ESPCN-style 2x super-resolution on synthetic 16x16 grey images: each high-resolution image is two random oriented
sinusoidal gratings plus a Gaussian blob, scaled to [0, 1]; the 8x8 input is its 2x2 average-pooled version. Three
convolutions (5x5, 3x3, 3x3, tanh) produce 4 channels that a PixelShuffle(2) rearranges into the 16x16 output. MSE
loss, SGD with momentum 0.9; PSNR in dB on 256 held-out images is reported."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "espcn"
LR, MOMENTUM, BATCH, EPOCHS, N_TRAIN = 0.01, 0.9, 32, 12, 1536
WARMUP = 0
MET, LOSSNAME, HIGHER = "psnr", "mean_squared_loss", True
def log_start(info):
    print(f"==> define parameters")
    print(f"==> construct model ({info['n_params']} parameters)")
    print(f"==> configuring optimizer")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    print(f"==> doing epoch on training data:")
    print(f"==> online epoch # {ep} [batchSize = {BATCH}]")
    print(f"==> time to learn 1 sample = {1000 * m['el'] / max(1, ep * NTR):.4f}ms")
    print(f"# current error = {m['tl']:.4f}    ({MET} {m['tm']:.4f})")
    print(f"==> testing on test set:")
    print(f"# test error = {m['vl']:.4f}    ({MET} {m['vm']:.4f})")


def log_end(m):
    print(f"==> saving model to results/model.net")

gen = torch.Generator().manual_seed(4)


def make_images(n):
    yy, xx = torch.meshgrid(torch.arange(16.0), torch.arange(16.0), indexing="ij")
    img = torch.zeros(n, 16, 16)
    for _ in range(2):
        th = math.pi * torch.rand(n, 1, 1, generator=gen)
        f = 0.3 + 0.9 * torch.rand(n, 1, 1, generator=gen)
        ph = 2 * math.pi * torch.rand(n, 1, 1, generator=gen)
        img += torch.sin(f * (torch.cos(th) * xx + torch.sin(th) * yy) + ph)
    cx, cy = 16 * torch.rand(n, 1, 1, generator=gen), 16 * torch.rand(n, 1, 1, generator=gen)
    img += 2.5 * torch.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / 8.0)
    img = (img - img.amin((1, 2), keepdim=True)) / (img.amax((1, 2), keepdim=True) - img.amin((1, 2), keepdim=True))
    hr = img.unsqueeze(1)
    return F.avg_pool2d(hr, 2), hr


lr_train, hr_train = make_images(N_TRAIN)
lr_val, hr_val = make_images(256)

model = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.Tanh(), nn.Conv2d(32, 16, 3, padding=1), nn.Tanh(),
                      nn.Conv2d(16, 4, 3, padding=1), nn.PixelShuffle(2))
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
steps = N_TRAIN // BATCH
NTR, NVA, NVB = N_TRAIN, 256, 8


def lr_at(step):
    return LR * min(1.0, (step + 1) / WARMUP) if WARMUP else LR


def psnr(mse):
    return 10 * math.log10(1.0 / max(mse, 1e-12))


n_params = sum(p.numel() for p in model.parameters())
log_start(dict(name=NAME, n_params=n_params, n_train=N_TRAIN, n_val=256, lr=LR, batch=BATCH, epochs=EPOCHS, n_layers=6))
gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot = 0.0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        for gr in optimizer.param_groups:
            gr["lr"] = lr_at(gstep)
        out = model(lr_train[idx])
        loss = criterion(out, hr_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item()
        log_step(epoch, i + 1, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        vl = criterion(model(lr_val), hr_val).item()
    tl = tot / steps
    m = dict(tl=tl, tm=psnr(tl), vl=vl, vm=psnr(vl), lr=optimizer.param_groups[0]["lr"], el=time.time() - t0, gstep=gstep,
             ep_s=time.time() - te)
    log_epoch(epoch, EPOCHS, m)
log_end(m)
