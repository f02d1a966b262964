# FlowNetS-style optical flow (Dosovitskiy et al. 2015) on synthetic image pairs: smooth random textures warped by a
# random affine motion (translation up to 3 px, rotation up to 6 degrees, scale 0.95-1.05) with grid_sample;
# the network sees both frames stacked (2 channels) and predicts the dense flow at 1/2 resolution, upsampled;
# trained with the average end-point error (EPE), as in the FlowNet papers.
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

SEED = 21
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)

with open("config.yaml") as f:
    cfg = yaml.safe_load(f)
H = W = 32
N_TRAIN, N_VAL = cfg["data"]["n_train"], cfg["data"]["n_val"]
BATCH_SIZE = cfg["train"]["batch_size"]
MAX_EPOCHS = cfg["train"]["max_epochs"]
LR = cfg["optimizer"]["lr"]
WEIGHT_DECAY = cfg["optimizer"]["weight_decay"]
MILESTONES = cfg["lr_config"]["milestones"]
GAMMA = cfg["lr_config"]["gamma"]
GRAD_CLIP = cfg["train"].get("grad_clip")


def make_pairs(n, g):
    tex = torch.randn(n, 1, H // 4, W // 4, generator=g)
    tex = F.interpolate(tex, size=(H + 8, W + 8), mode="bicubic", align_corners=False)
    tex = tex + 0.3 * F.interpolate(torch.randn(n, 1, H // 2, W // 2, generator=g), size=(H + 8, W + 8), mode="bilinear", align_corners=False)
    img1 = tex[:, :, 4:-4, 4:-4]
    ang = (torch.rand(n, generator=g) - 0.5) * 2 * math.radians(6)
    sc = 0.95 + 0.1 * torch.rand(n, generator=g)
    t = (torch.rand(n, 2, generator=g) - 0.5) * 2 * 3.0  # pixels
    ys, xs = torch.meshgrid(torch.arange(H, dtype=torch.float32), torch.arange(W, dtype=torch.float32), indexing="ij")
    cx, cy = xs - (W - 1) / 2, ys - (H - 1) / 2
    cos, sin = torch.cos(ang)[:, None, None], torch.sin(ang)[:, None, None]
    # backward flow: pixel p in frame 2 comes from p + flow in frame 1
    src_x = sc[:, None, None] * (cos * cx - sin * cy) + t[:, 0, None, None]
    src_y = sc[:, None, None] * (sin * cx + cos * cy) + t[:, 1, None, None]
    flow = torch.stack([src_x - cx, src_y - cy], 1)
    grid = torch.stack([(src_x + (W - 1) / 2 + 4) / (W + 7) * 2 - 1, (src_y + (H - 1) / 2 + 4) / (H + 7) * 2 - 1], -1)
    img2 = F.grid_sample(tex, grid, mode="bilinear", align_corners=True)
    img1 = img1 + 0.05 * torch.randn(img1.shape, generator=g)
    img2 = img2 + 0.05 * torch.randn(img2.shape, generator=g)
    return torch.cat([img1, img2], 1), flow


g = torch.Generator().manual_seed(SEED)
X_train, F_train = make_pairs(N_TRAIN, g)
X_val, F_val = make_pairs(N_VAL, g)
IMG_MEAN, IMG_STD = X_train.mean(), X_train.std()
X_train, X_val = (X_train - IMG_MEAN) / IMG_STD, (X_val - IMG_MEAN) / IMG_STD


def get_batch(idx):
    return X_train[idx], F_train[idx]


def conv(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1), nn.LeakyReLU(0.1))


class FlowNetS(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = conv(2, 24, 2)    # 16
        self.conv2 = conv(24, 48, 2)   # 8
        self.conv3 = conv(48, 64, 2)   # 4
        self.conv3_1 = conv(64, 64)
        self.predict3 = nn.Conv2d(64, 2, 3, 1, 1)
        self.deconv2 = nn.Sequential(nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.LeakyReLU(0.1))
        self.predict2 = nn.Conv2d(48 + 32 + 2, 2, 3, 1, 1)
        self.deconv1 = nn.Sequential(nn.ConvTranspose2d(48 + 32 + 2, 16, 4, 2, 1), nn.LeakyReLU(0.1))
        self.predict1 = nn.Conv2d(24 + 16 + 2, 2, 3, 1, 1)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)

    def forward(self, x):
        c1 = self.conv1(x)
        c2 = self.conv2(c1)
        c3 = self.conv3_1(self.conv3(c2))
        f3 = self.predict3(c3)
        cat2 = torch.cat([c2, self.deconv2(c3), self.up(f3)], 1)
        f2 = self.predict2(cat2)
        cat1 = torch.cat([c1, self.deconv1(cat2), self.up(f2)], 1)
        f1 = self.predict1(cat1)
        return self.up(f1)


def epe(pred, gt):
    return torch.norm(pred - gt, p=2, dim=1).mean()


model = FlowNetS()
for m in model.modules():
    if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.normal_(m.weight, mean=0.0, std=1.0)
        nn.init.zeros_(m.bias)
optimizer = torch.optim.Adam(model.parameters(), lr=LR, betas=(0.9, 0.999), weight_decay=WEIGHT_DECAY)
iters_per_epoch = N_TRAIN // BATCH_SIZE
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[m * iters_per_epoch for m in MILESTONES], gamma=GAMMA)

SUM_FREQ = 32
total_steps = 0
running = {}
print(f"Parameter Count: {sum(p.numel() for p in model.parameters())}")
for epoch in range(1, MAX_EPOCHS + 1):
    model.train()
    perm = torch.randperm(N_TRAIN)
    for i in range(iters_per_epoch):
        t_iter = time.time()
        xb, fb = get_batch(perm[i * BATCH_SIZE:(i + 1) * BATCH_SIZE])
        data_time = time.time() - t_iter
        pred = model(xb)
        loss = epe(pred, fb)
        optimizer.zero_grad()
        loss.backward()
        if GRAD_CLIP is not None:
            nn.utils.clip_grad_norm_(model.parameters(), GRAD_CLIP)
        optimizer.step()
        scheduler.step()
        total_steps += 1
        err = torch.norm(pred.detach() - fb, dim=1)
        for k, v in {"epe": loss.item(), "1px": (err < 1).float().mean().item(), "3px": (err < 3).float().mean().item(),
                     "5px": (err < 5).float().mean().item()}.items():
            running[k] = running.get(k, 0.0) + v
        if total_steps % SUM_FREQ == SUM_FREQ - 1:
            metrics_str = ("{:10.4f}, " * len(running)).format(*[running[k] / SUM_FREQ for k in sorted(running)])
            print("[{:6d}, {:10.7f}] ".format(total_steps + 1, scheduler.get_last_lr()[0]) + metrics_str)
            running = {}
    model.eval()
    with torch.no_grad():
        pv = model(X_val)
        val_epe = epe(pv, F_val).item()
        err = torch.norm(pv - F_val, dim=1)
        px1, px3 = (err < 1).float().mean().item(), (err < 3).float().mean().item()
    print("Validation synthetic EPE: %f, 1px: %f, 3px: %f" % (val_epe, px1, px3))
