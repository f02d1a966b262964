"""Glow/SRFlow-style flow training in miniature (after a "Negative loss? is that a problem?" question).

Conditional-free affine-coupling flow (RealNVP/Glow-like: 6 coupling blocks
with checkerboard/channel masks and ActNorm-like learnable scale) on
synthetic 8x8 grayscale patches in [0, 1] (smooth gradients, blobs and edges
plus a little noise, 8000 train / 1000 validation).  Objective as in the
question: logp = GaussianDiag.logp(z), obj = logdets + logp,
loss = -obj / (log(2) * pixels), Adam 1e-3, batch 128, 1500 steps, logging
loss, logp and logdet every 150 steps and a validation NLL.
"""
import math
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
rng = np.random.RandomState(12)
torch.manual_seed(12)
P = 8
D = P * P


def patches(n):
    yy, xx = np.mgrid[0:P, 0:P] / (P - 1.0)
    out = np.zeros((n, P, P), np.float32)
    for i in range(n):
        a, b, c = rng.uniform(-0.4, 0.4, 3)
        img = 0.5 + a * xx + b * yy
        if rng.rand() < 0.5:
            cx, cy, r = rng.uniform(0, 1, 2).tolist() + [rng.uniform(0.1, 0.3)]
            img += c * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
        else:
            img += c * (xx * math.cos(a * 5) + yy * math.sin(a * 5) > rng.uniform(0.3, 0.9))
        out[i] = np.clip(img + 0.01 * rng.randn(P, P), 0, 1)
    return torch.from_numpy(out.reshape(n, D))


Xtr, Xva = patches(8000), patches(1000)


class Coupling(nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.register_buffer('mask', mask)
        self.net = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 2 * D))
        nn.init.zeros_(self.net[-1].weight); nn.init.zeros_(self.net[-1].bias)
        self.logs = nn.Parameter(torch.zeros(D))     # ActNorm-like scale

    def forward(self, x):
        h = self.net(x * self.mask)
        s, t = h.chunk(2, 1)
        s = torch.tanh(s) * (1 - self.mask)
        t = t * (1 - self.mask)
        y = x * self.mask + (1 - self.mask) * (x * torch.exp(s) + t)
        y = y * torch.exp(self.logs)
        return y, s.sum(1) + self.logs.sum()


checker = ((torch.arange(D) // P + torch.arange(D) % P) % 2).float()
half = (torch.arange(D) < D // 2).float()
masks = [checker, 1 - checker, half, 1 - half, checker, 1 - checker]
flow = nn.ModuleList([Coupling(m) for m in masks])


def nll(x):
    z, logdets = x, torch.zeros(len(x))
    for f in flow:
        z, ld = f(z)
        logdets = logdets + ld
    logp = (-0.5 * math.log(2 * math.pi) - 0.5 * z ** 2).sum(1)    # GaussianDiag.logp(None, None, z)
    obj = logdets + logp
    loss = (-obj / (math.log(2.) * D)).mean()
    return loss, logp.mean() / D, logdets.mean() / D


opt = torch.optim.Adam(flow.parameters(), lr=1e-3)
for step in range(1, 1501):
    idx = torch.randint(0, len(Xtr), (128,))
    loss, logp, logdet = nll(Xtr[idx])
    opt.zero_grad(); loss.backward(); opt.step()
    if step == 1 or step % 150 == 0:
        with torch.no_grad():
            vloss = nll(Xva)[0].item()
        print('<step:%5d> loss: %.4f  logp/pixel: %.4f  logdet/pixel: %.4f  | val NLL (bits/pixel): %.4f'
              % (step, loss.item(), logp.item(), logdet.item(), vloss))
