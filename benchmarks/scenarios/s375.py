"""FMix (Fourier-mask mixed-sample augmentation) CIFAR-style classifier in miniature,
after the ecs-vlc/FMix cifar_experiment run through torchbearer.

Synthetic 3x16x16 images of 10 classes (coloured shape + texture, random
colour jitter and noise), 5000 train / 1000 validation, small pre-activation
ResNet-ish CNN, SGD 0.05 momentum 0.9 nesterov, wd 5e-4, cosine schedule,
batch 64, 15 epochs.  Every training batch is mixed with FMix (alpha 1,
decay power 3): a low-frequency binary mask takes a fraction lam of the
pixels from a shuffled partner image, the loss is
lam*CE(y) + (1-lam)*CE(y_partner), and the printed training accuracy is the
torchbearer mixup accuracy (lam-weighted hits of both labels).  Validation
images are not mixed.
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
rng = np.random.RandomState(3)
torch.manual_seed(3)
S = 16
yy, xx = np.mgrid[0:S, 0:S].astype(np.float32) / S


def sample(c, r):
    cx, cy = r.uniform(0.3, 0.7, 2)
    rad = r.uniform(0.18, 0.3)
    ang = np.arctan2(yy - cy, xx - cx)
    dist = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2)
    k = c % 5
    shape = [dist < rad,
             (abs(xx - cx) < rad) & (abs(yy - cy) < rad),
             dist < rad * (1 + 0.35 * np.cos(3 * ang)),
             (abs(xx - cx) + abs(yy - cy)) < rad * 1.3,
             (dist < rad) & (dist > rad * 0.55)][k].astype(np.float32)
    tex = np.sin((xx * np.cos(c) + yy * np.sin(c)) * (8 + c) + r.uniform(0, 6.28)) * (0.5 if c >= 5 else 0.1)
    col = np.array([[0.9, 0.3, 0.2], [0.2, 0.8, 0.3], [0.2, 0.4, 0.9], [0.9, 0.8, 0.2], [0.7, 0.3, 0.8]][(c * 3) % 5])
    col = col + r.randn(3) * 0.25
    bg = r.uniform(-0.4, 0.4, size=3)
    img = bg[:, None, None] * (1 - shape) + (col[:, None, None] + tex) * shape
    return (img + 0.25 * r.randn(3, S, S)).astype(np.float32)


def make(n):
    y = rng.randint(0, 10, n)
    return np.stack([sample(c, rng) for c in y]), y


Xtr, ytr = make(5000)
Xva, yva = make(1000)


def fmix_mask(lam, decay=3.0):
    fy = np.fft.fftfreq(S)[:, None]; fx = np.fft.rfftfreq(S)[None, :]
    freq = np.sqrt(fx ** 2 + fy ** 2)
    scale = 1.0 / np.maximum(freq, 1.0 / S) ** decay
    spec = (rng.randn(S, S // 2 + 1) + 1j * rng.randn(S, S // 2 + 1)) * scale
    grey = np.fft.irfft2(spec, s=(S, S))
    thr = np.quantile(grey, 1 - lam)
    return (grey > thr).astype(np.float32)


class Block(nn.Module):
    def __init__(self, i, o, s):
        super().__init__()
        self.b1, self.c1 = nn.BatchNorm2d(i), nn.Conv2d(i, o, 3, s, 1, bias=False)
        self.b2, self.c2 = nn.BatchNorm2d(o), nn.Conv2d(o, o, 3, 1, 1, bias=False)
        self.sc = nn.Conv2d(i, o, 1, s, bias=False) if (i != o or s != 1) else nn.Identity()

    def forward(self, x):
        o = self.c1(F.relu(self.b1(x)))
        return self.c2(F.relu(self.b2(o))) + self.sc(x)


net = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), Block(16, 16, 1), Block(16, 32, 2), Block(32, 64, 2),
                    nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))
EPOCHS, BS = 15, 64
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
steps = EPOCHS * math.ceil(len(Xtr) / BS)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * s / steps)))
nb = math.ceil(len(Xtr) / BS)

for ep in range(EPOCHS):
    net.train()
    perm = rng.permutation(len(Xtr)); rl = ra = n = 0
    for b in range(nb):
        idx = perm[b * BS:(b + 1) * BS]
        x, y = torch.from_numpy(Xtr[idx]), torch.from_numpy(ytr[idx]).long()
        lam = rng.beta(1.0, 1.0)
        m = torch.from_numpy(fmix_mask(lam))
        j = torch.randperm(len(idx))
        xm = x * m + x[j] * (1 - m)
        lam_eff = m.mean().item()
        out = net(xm)
        loss = lam_eff * F.cross_entropy(out, y) + (1 - lam_eff) * F.cross_entropy(out, y[j])
        opt.zero_grad(); loss.backward(); opt.step(); sched.step()
        pred = out.argmax(1)
        acc = lam_eff * (pred == y).float().mean().item() + (1 - lam_eff) * (pred == y[j]).float().mean().item()
        rl = 0.98 * rl + 0.02 * loss.item() if n else loss.item()
        ra = 0.98 * ra + 0.02 * acc if n else acc
        n += 1
    net.eval()
    with torch.no_grad():
        out = net(torch.from_numpy(Xva)); yv = torch.from_numpy(yva).long()
        vl = F.cross_entropy(out, yv).item(); va = (out.argmax(1) == yv).float().mean().item()
    print('%d/%d(t): 100%%|##########| %d/%d [running_loss=%.4f, running_mixup_acc=%.4f, lr=%.4f]'
          % (ep, EPOCHS, nb, nb, rl, ra, opt.param_groups[0]['lr']))
    print('%d/%d(v): 100%%|##########| %d/%d [running_loss=%.4f, running_mixup_acc=%.4f, val_loss=%.4f, val_mixup_acc=%.4f]'
          % (ep, EPOCHS, 16, 16, rl, ra, vl, va))
