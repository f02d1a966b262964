"""Small DenseNet (two dense blocks of three BN-ReLU-Conv3x3 layers, growth rate 8, a 1x1 transition with average
pooling, global average pooling and a linear head) classifying synthetic 16x16 grayscale images into 5 shape classes
(filled square, plus sign, ring, horizontal bar pair, diagonal line) drawn at random positions and sizes with random
contrast, Gaussian pixel noise sd 0.35 and 5% of training labels resampled. SGD with momentum 0.9 and weight decay 5e-4,
cross-entropy; metric: validation accuracy (chance 0.20)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "densenet"
MET = "val_acc"
LR, BATCH, EPOCHS = 0.02, 32, 8
N_TRAIN, N_VAL = 1500, 600


def log_start(info):
    print(f"lab/{info['name']}/status {{\"state\":\"started\",\"params\":{info['n_params']}}}")


def log_step(ep, i, n, loss, lr, gstep, el):
    if i == n:
        print(f"lab/{NAME}/step/{gstep} {loss:.5f}")


def log_epoch(ep, E, m):
    print(f"lab/{NAME}/epoch/{ep} {{\"train_loss\":{m['tl']:.5f},\"val_loss\":{m['vl']:.5f},\"{MET}\":{m['vm']:.4f}}}")


def log_end(m):
    print(f"lab/{NAME}/status {{\"state\":\"finished\",\"{MET}\":{m['vm']:.4f}}}")

gen = torch.Generator().manual_seed(21)
yy, xx = torch.meshgrid(torch.arange(16.0), torch.arange(16.0), indexing="ij")


def draw(c):
    s = 2 + int(torch.randint(0, 3, (1,), generator=gen))
    cy = 4 + float(torch.randint(0, 8, (1,), generator=gen))
    cx = 4 + float(torch.randint(0, 8, (1,), generator=gen))
    if c == 0:
        img = ((yy - cy).abs() <= s) & ((xx - cx).abs() <= s)
    elif c == 1:
        img = (((yy - cy).abs() <= s) & ((xx - cx).abs() <= 0.6)) | (((xx - cx).abs() <= s) & ((yy - cy).abs() <= 0.6))
    elif c == 2:
        r = ((yy - cy) ** 2 + (xx - cx) ** 2).sqrt()
        img = (r <= s + 0.8) & (r >= s - 0.6)
    elif c == 3:
        img = (((yy - cy).abs() - 1.5).abs() <= 0.6) & ((xx - cx).abs() <= s + 1)
    else:
        img = ((yy - cy) - (xx - cx)).abs() <= 0.7
        img = img & ((yy - cy).abs() <= s + 1)
    contrast = 0.6 + 0.8 * float(torch.rand(1, generator=gen))
    return img.float() * contrast


def make(n):
    y = torch.randint(0, 5, (n,), generator=gen)
    x = torch.stack([draw(int(c)) for c in y]).unsqueeze(1)
    x = x + 0.35 * torch.randn(x.shape, generator=gen)
    return x, y


x_tr, y_tr = make(N_TRAIN)
x_va, y_va = make(N_VAL)
flip = torch.rand(N_TRAIN, generator=gen) < 0.05
y_tr[flip] = torch.randint(0, 5, (int(flip.sum()),), generator=gen)



class DenseLayer(nn.Module):
    def __init__(self, cin, g):
        super().__init__()
        self.bn = nn.BatchNorm2d(cin)
        self.conv = nn.Conv2d(cin, g, 3, padding=1, bias=False)

    def forward(self, x):
        return torch.cat([x, self.conv(F.relu(self.bn(x)))], 1)


class DenseNet(nn.Module):
    def __init__(self, g=8):
        super().__init__()
        self.stem = nn.Conv2d(1, 16, 3, padding=1, bias=False)
        c = 16
        b1 = []
        for _ in range(3):
            b1.append(DenseLayer(c, g))
            c += g
        self.block1 = nn.Sequential(*b1)
        self.trans = nn.Sequential(nn.BatchNorm2d(c), nn.ReLU(), nn.Conv2d(c, c // 2, 1, bias=False), nn.AvgPool2d(2))
        c = c // 2
        b2 = []
        for _ in range(3):
            b2.append(DenseLayer(c, g))
            c += g
        self.block2 = nn.Sequential(*b2)
        self.bn = nn.BatchNorm2d(c)
        self.classifier = nn.Linear(c, 5)


    def forward(self, x):
        h = self.block2(self.trans(self.block1(self.stem(x))))
        h = F.adaptive_avg_pool2d(F.relu(self.bn(h)), 1).flatten(1)
        return self.classifier(h)


model = DenseNet()
opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9, weight_decay=5e-4)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "n_train": N_TRAIN, "n_val": N_VAL})
t0 = time.time()
gstep = 0
n_b = math.ceil(N_TRAIN / BATCH)
for ep in range(1, EPOCHS + 1):
    model.train()
    order = torch.randperm(N_TRAIN, generator=gen)
    tot = 0.0
    for i in range(n_b):
        idx = order[i * BATCH:(i + 1) * BATCH]
        opt.zero_grad()
        loss = F.cross_entropy(model(x_tr[idx]), y_tr[idx])
        loss.backward()
        opt.step()
        tot += loss.item() * len(idx)
        gstep += 1
        log_step(ep, i + 1, n_b, loss.item(), LR, gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        out = model(x_va)
        vl = F.cross_entropy(out, y_va).item()
        acc = (out.argmax(1) == y_va).float().mean().item()
    log_epoch(ep, EPOCHS, {"tl": tot / N_TRAIN, "vl": vl, "vm": acc, "lr": LR, "el": time.time() - t0})
log_end({"vm": acc, "vl": vl, "el": time.time() - t0})
