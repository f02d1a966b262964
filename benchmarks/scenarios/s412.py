# Zooming-Slow-Mo (CVPR 2020, mmsr-style codebase) training in miniature: a small conv network
# takes two low-resolution frames (3 x 16 x 16) and outputs three high-resolution frames
# (3 x 32 x 32: the two inputs upscaled and the missing middle frame) of synthetic videos of
# moving textured blobs; loss = Charbonnier loss summed over all pixels of the batch (batch 4,
# as in the repository's pixel criterion with reduction 'sum'), Adam lr 4e-4 (betas 0.9, 0.99),
# CosineAnnealingLR_Restart with equal periods (restarts every 250 iterations here, every 150,000
# in the repository), 1000 iterations, log lines "<epoch: e, iter: i, lr:...> l_pix: ..." every
# 25 iterations (the l_pix of that single batch, as the mmsr logger prints).
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(36); torch.manual_seed(36); torch.set_num_threads(1)
H = 32; yy, xx = np.mgrid[0:H, 0:H].astype(np.float32)
def clip3():
    frames = np.zeros((3, 3, H, H), np.float32); bg = np.random.rand(3, 1, 1).astype(np.float32) * 0.5
    blobs = [(np.random.rand(2) * H, (np.random.rand(2) - 0.5) * 6, np.random.rand(3), np.random.uniform(3, 7), np.random.uniform(0.3, 1.2)) for _ in range(3)]
    for t in range(3):
        img = np.repeat(bg, H, 1).repeat(H, 2).copy()
        for (p, v, c, r, fq) in blobs:
            cy, cx = p + v * t; m = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))
            img += m[None] * c[:, None, None] * (0.7 + 0.3 * np.sin(fq * (xx + yy)))[None]
        frames[t] = np.clip(img, 0, 1)
    return frames
def batch(n=4):
    hr = torch.tensor(np.stack([clip3() for _ in range(n)]))            # n,3(t),3,32,32
    lr = F.avg_pool2d(hr[:, [0, 2]].reshape(-1, 3, H, H), 2).reshape(n, 6, H // 2, H // 2)
    return lr, hr.reshape(n, 9, H, H)

class ZSM(nn.Module):
    def __init__(self, nf=32):
        super().__init__()
        self.head = nn.Conv2d(6, nf, 3, padding=1)
        self.body = nn.Sequential(*[m for _ in range(4) for m in (nn.Conv2d(nf, nf, 3, padding=1), nn.LeakyReLU(0.1))])
        self.up = nn.Conv2d(nf, nf * 4, 3, padding=1); self.out = nn.Conv2d(nf, 9, 3, padding=1)
    def forward(self, x):
        f = F.leaky_relu(self.head(x), 0.1); f = f + self.body(f)
        f = F.leaky_relu(F.pixel_shuffle(self.up(f), 2), 0.1)
        base = torch.cat([x[:, :3], (x[:, :3] + x[:, 3:]) / 2, x[:, 3:]], 1)           # t0, blend, t2
        return self.out(f) + F.interpolate(base, scale_factor=2, mode='bilinear', align_corners=False)

def charbonnier(x, y, eps=1e-6): return torch.sum(torch.sqrt((x - y) ** 2 + eps))
model = ZSM()
opt = torch.optim.Adam(model.parameters(), lr=4e-4, betas=(0.9, 0.99))
T_period, eta_min = 250, 1e-7
def lr_at(it): return eta_min + (4e-4 - eta_min) * (1 + math.cos(math.pi * ((it - 1) % T_period) / T_period)) / 2
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['iter', 'lr', 'l_pix'])
iters_per_epoch = 100
for it in range(1, 1001):
    for g in opt.param_groups: g['lr'] = lr_at(it)
    lr_in, hr = batch(); loss = charbonnier(model(lr_in), hr)
    opt.zero_grad(); loss.backward(); opt.step()
    if it % 25 == 0:
        print('<epoch:{:3d}, iter:{:8,d}, lr:{:.3e}> l_pix: {:.4e} '.format((it - 1) // iters_per_epoch, it, lr_at(it), loss.item()))
        wr.writerow([it, lr_at(it), loss.item()])
