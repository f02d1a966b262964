"""Tiny ResNet for road-sign shapes (circle / square / triangle / cross) on 3x16x16 RGB crops."""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(84)
rng = np.random.default_rng(84)

SHAPES = ["circle", "square", "triangle", "cross"]
S = 16
yy, xx = np.mgrid[0:S, 0:S].astype(np.float32)


def render(shape, cx, cy, size):
    dx, dy = xx - cx, yy - cy
    if shape == 0:
        return (dx ** 2 + dy ** 2 <= size ** 2).astype(np.float32)
    if shape == 1:
        return ((np.abs(dx) <= size * 0.8) & (np.abs(dy) <= size * 0.8)).astype(np.float32)
    if shape == 2:
        return ((dy <= size * 0.8) & (dy >= -size) & (np.abs(dx) <= (dy + size) * 0.55)).astype(np.float32)
    return (((np.abs(dx) <= size * 0.3) & (np.abs(dy) <= size)) | ((np.abs(dy) <= size * 0.3) & (np.abs(dx) <= size))).astype(np.float32)


def make_crops(n):
    imgs = np.empty((n, 3, S, S), dtype=np.float32)
    labels = rng.integers(0, len(SHAPES), n)
    for i, lab in enumerate(labels):
        mask = render(lab, rng.uniform(6, 10), rng.uniform(6, 10), rng.uniform(3.5, 5.5))
        bg = rng.uniform(0, 0.4, 3)
        fg = bg + rng.uniform(0.4, 0.6, 3)
        imgs[i] = fg[:, None, None] * mask + bg[:, None, None] * (1 - mask) + rng.normal(0, 0.1, (3, S, S))
    return torch.from_numpy(imgs), torch.from_numpy(labels)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class TinyResNet(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.layer1 = BasicBlock(16, 16)
        self.layer2 = BasicBlock(16, 32, stride=2)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


x_tr, y_tr = make_crops(1000)
x_va, y_va = make_crops(300)
mean, std = x_tr.mean((0, 2, 3), keepdim=True), x_tr.std((0, 2, 3), keepdim=True)
x_tr, x_va = (x_tr - mean) / std, (x_va - mean) / std
loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=64, shuffle=True)

net = TinyResNet()
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.3)

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "lr", "train_loss", "train_acc", "val_loss", "val_acc"])
    for epoch in range(8):
        net.train()
        n, tl, tc = 0, 0.0, 0
        for xb, yb in loader:
            out = net(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            n += len(yb)
            tl += loss.item() * len(yb)
            tc += (out.argmax(1) == yb).sum().item()
        lr = opt.param_groups[0]["lr"]
        sched.step()
        net.eval()
        with torch.no_grad():
            vo = net(x_va)
            vl = F.cross_entropy(vo, y_va).item()
            va = (vo.argmax(1) == y_va).float().mean().item()
        w.writerow([epoch, lr, f"{tl / n:.5f}", f"{tc / n:.4f}", f"{vl:.5f}", f"{va:.4f}"])
        print(f"epoch {epoch}  lr {lr:.4f}  train {tl / n:.4f}/{tc / n:.3f}  val {vl:.4f}/{va:.3f}")
