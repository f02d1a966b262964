"""DnCNN-style residual denoiser (Zhang et al. 2017) on synthetic 16x16 grayscale images.
Clean images are sums of 2-4 random rectangles and Gaussian blobs with intensities in [0, 1]; the input adds
Gaussian noise of standard deviation 0.1. The network (conv-ReLU, four conv-BatchNorm-ReLU blocks with 32 channels,
a final conv) predicts the noise and the output is input minus predicted noise; MSE loss against the clean image.
Adam; metric: validation PSNR in dB (the noisy input itself scores 20.0 dB; higher is better).
"""
import math
import random
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
import json

torch.manual_seed(0)
torch.set_num_threads(1)
random.seed(0)
with open("config.json") as f:
    CFG = json.load(f)
NAME = "dncnn"
MET = "val_psnr"
HIGHER = True
LR, BATCH, EPOCHS = float(CFG["lr"]), int(CFG["batch_size"]), int(CFG["epochs"])
SIGMA, CH, DEPTH = CFG["noise_sigma"], CFG["channels"], CFG["depth"]
N_TRAIN, N_VAL = CFG["n_train"], CFG["n_val"]

_STD = ("ep", "tl", "vl", "vm", "lr", "secs", "el", "best", "prev_vl", "nb")


def _extras(m):
    return {k: v for k, v in m.items() if k not in _STD}


def log_start(info):
    print(f'.TH {info["name"].upper()} 1 "December 2026" "train 1.0" "Training Report"')
    print(".SH SYNOPSIS")
    print(f".B train.py\n\\-\\-lr {info['lr']} \\-\\-batch {info['batch']}")
    print(".SH EPOCHS")


def log_step(ep, i, n, loss, lr, extra):
    pass


def log_epoch(ep, E, m):
    print(f".TP\n.B epoch {ep}")
    print(f"train loss {m['tl']:.5f}, val loss {m['vl']:.5f}, val PSNR {m['vm']:.2f} dB")


def log_end(m):
    print(".SH RESULT")
    print(f"best val PSNR {m['best']:.2f} dB")


def run_epochs(model, opt, train_batches, evaluate, step_fn, n_train, n_val, after_epoch=None, clip=None):
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"name": NAME, "n_params": n_params, "n_train": n_train, "n_val": n_val, "lr": LR, "batch": BATCH,
               "epochs": EPOCHS, "n_batches": N_BATCHES})
    t_start = time.time()
    best, prev_vl = None, None
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb = 0.0, 0
        for i, batch in enumerate(train_batches(), 1):
            loss, extra = step_fn(batch)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, N_BATCHES, loss, opt.param_groups[0]["lr"], extra)
        model.eval()
        with torch.no_grad():
            res = evaluate()
        vl, vm = res[0], res[1]
        if best is None or (vm > best if HIGHER else vm < best):
            best = vm
        m = {"ep": ep, "tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb}
        if len(res) > 2:
            m.update(res[2])
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
        if after_epoch is not None:
            after_epoch()
    m["el"] = time.time() - t_start
    log_end(m)


N_BATCHES = N_TRAIN // BATCH
LOG_EVERY = max(1, N_BATCHES // 4)
PIXEL_MAX = 1.0


def make_images(n, g):
    yy, xx = torch.meshgrid(torch.arange(16.0), torch.arange(16.0), indexing="ij")
    imgs = torch.zeros(n, 1, 16, 16)
    for j in range(n):
        k = int(torch.randint(2, 5, (1,), generator=g))
        for _ in range(k):
            a = float(torch.rand(1, generator=g)) * 0.8 + 0.2
            if float(torch.rand(1, generator=g)) < 0.5:
                x0, y0 = torch.randint(0, 12, (2,), generator=g).tolist()
                w, h = torch.randint(3, 8, (2,), generator=g).tolist()
                imgs[j, 0, y0:y0 + h, x0:x0 + w] += a
            else:
                cx, cy = (torch.rand(2, generator=g) * 16).tolist()
                s = float(torch.rand(1, generator=g)) * 2.5 + 1.0
                imgs[j, 0] += a * torch.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * s * s))
    return imgs.clamp(0, 1)


g = torch.Generator().manual_seed(0)
Ctr = make_images(N_TRAIN, g) * PIXEL_MAX
Cva = make_images(N_VAL, g) * PIXEL_MAX
Ntr = Ctr + torch.randn(Ctr.shape, generator=g) * SIGMA * PIXEL_MAX
Nva = Cva + torch.randn(Cva.shape, generator=g) * SIGMA * PIXEL_MAX


class DnCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(1, CH, 3, padding=1)
        layers = []
        for _ in range(DEPTH):
            layers += [nn.Conv2d(CH, CH, 3, padding=1, bias=False), nn.BatchNorm2d(CH), nn.ReLU()]
        self.body = nn.Sequential(*layers)
        self.tail = nn.Conv2d(CH, 1, 3, padding=1)

    def forward(self, x):
        r = self.tail(self.body(F.relu(self.head(x))))
        return x - r


model = DnCNN()
opt = torch.optim.Adam(model.parameters(), lr=LR)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=CFG["lr_step_size"], gamma=CFG["lr_gamma"])


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for b in range(N_BATCHES):
        idx = perm[b * BATCH:(b + 1) * BATCH]
        yield Ntr[idx], Ctr[idx]


def step_fn(batch):
    noisy, clean = batch
    loss = F.mse_loss(model(noisy), clean)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item(), {}


def psnr(mse):
    return 10 * math.log10(PIXEL_MAX ** 2 / max(mse, 1e-12))


def evaluate():
    out = model(Nva)
    mse = F.mse_loss(out, Cva).item()
    return mse, psnr(mse), {"input_psnr": psnr(F.mse_loss(Nva, Cva).item())}


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL, after_epoch=sched.step)
