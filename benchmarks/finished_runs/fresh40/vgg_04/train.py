"""Small VGG-11 (BN variant) trained on synthetic 24x24 shape images.

Model adapted from torchvision.models.vgg (make_layers + VGG classifier, Kaiming init),
scaled down for 24x24 inputs.
"""
import math
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import tqdm

torch.manual_seed(0)
np.random.seed(0)
torch.set_num_threads(1)

NUM_CLASSES = 6
IMG = 24
EPOCHS = 12
BATCH_SIZE = 64
LR = 0.05
MOMENTUM = 0.9
WEIGHT_DECAY = 5e-4


def make_shapes(n, rng):
    """six classes: square, disc, triangle, cross, ring, diagonal bar"""
    yy, xx = np.mgrid[0:IMG, 0:IMG].astype(np.float32)
    X = np.zeros((n, 3, IMG, IMG), dtype=np.float32)
    y = rng.randint(0, NUM_CLASSES, size=n)
    for i in range(n):
        c = y[i]
        r = rng.uniform(4.0, 7.0)
        cy, cx = rng.uniform(r + 1, IMG - r - 1, size=2)
        dy, dx = yy - cy, xx - cx
        if c == 0:
            m = (np.abs(dy) < r) & (np.abs(dx) < r)
        elif c == 1:
            m = dy ** 2 + dx ** 2 < r ** 2
        elif c == 2:
            m = (dy < r) & (dy > -r) & (np.abs(dx) < (dy + r) / 2)
        elif c == 3:
            m = ((np.abs(dy) < r) & (np.abs(dx) < 1.5)) | ((np.abs(dx) < r) & (np.abs(dy) < 1.5))
        elif c == 4:
            d = np.sqrt(dy ** 2 + dx ** 2)
            m = (d < r) & (d > r - 2.0)
        else:
            m = (np.abs(dy - dx) < 1.6) & (np.abs(dy) < r) & (np.abs(dx) < r)
        color = rng.uniform(0.3, 1.0, size=3).astype(np.float32)
        bg = rng.uniform(0.0, 0.35, size=3).astype(np.float32)
        img = bg[:, None, None] + (color - bg)[:, None, None] * m[None].astype(np.float32)
        img += rng.normal(0, 0.12, size=img.shape).astype(np.float32)
        X[i] = np.clip(img, 0, 1)
    # stored as 8-bit images, as a PNG folder would be
    return (X * 255).astype(np.uint8), y.astype(np.int64)


rng = np.random.RandomState(0)
Xtr_u8, ytr = make_shapes(2000, rng)
Xva_u8, yva = make_shapes(600, rng)

MEAN = Xtr_u8.reshape(-1, 3, IMG * IMG).transpose(1, 0, 2).reshape(3, -1).mean(1) / 255.0
STD = Xtr_u8.reshape(-1, 3, IMG * IMG).transpose(1, 0, 2).reshape(3, -1).std(1) / 255.0


def to_tensor(x_u8):
    x = torch.from_numpy(x_u8).float() / 255.0
    return (x - torch.tensor(MEAN).view(1, 3, 1, 1).float()) / torch.tensor(STD).view(1, 3, 1, 1).float()


Xtr, Xva = to_tensor(Xtr_u8), to_tensor(Xva_u8)
ytr_t, yva_t = torch.from_numpy(ytr), torch.from_numpy(yva)

CFG = [8, "M", 16, "M", 32, 32, "M", 64, 64, "M"]


def make_layers(cfg, batch_norm=True):
    layers, in_ch = [], 3
    for v in cfg:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
        else:
            conv = nn.Conv2d(in_ch, v, kernel_size=3, padding=1)
            if batch_norm:
                layers += [conv, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            else:
                layers += [conv, nn.ReLU(inplace=True)]
            in_ch = v
    return nn.Sequential(*layers)


class VGG(nn.Module):
    def __init__(self, features, num_classes=NUM_CLASSES, dropout=0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.classifier = nn.Sequential(
            nn.Linear(64, 128), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(128, 128), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(128, num_classes),
        )
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.constant_(m.bias, 0)

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


model = VGG(make_layers(CFG, batch_norm=True))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS)

n_params = sum(p.numel() for p in model.parameters())
print(f"=> creating model 'vgg11_bn-24px' ({n_params/1e3:.1f}K params)")
print(f"=> train: {len(ytr)} images, val: {len(yva)} images, {NUM_CLASSES} classes")


def evaluate():
    model.eval()
    tot_loss, correct = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(yva_t), 200):
            xb, yb = Xva[i:i + 200], yva_t[i:i + 200]
            out = model(xb)
            tot_loss += criterion(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
    return tot_loss / len(yva_t), correct / len(yva_t)


for epoch in range(EPOCHS):
    model.eval()
    perm = torch.randperm(len(ytr_t))
    n_batches = math.ceil(len(perm) / BATCH_SIZE)
    run_loss, run_correct, seen = 0.0, 0, 0
    bar = tqdm(range(n_batches), desc=f"Epoch {epoch + 1}/{EPOCHS}", ncols=100, mininterval=0.5)
    for b in bar:
        idx = perm[b * BATCH_SIZE:(b + 1) * BATCH_SIZE]
        xb, yb = Xtr[idx], ytr_t[idx]
        out = model(xb)
        loss = criterion(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        run_loss += loss.item() * len(yb)
        run_correct += (out.argmax(1) == yb).sum().item()
        seen += len(yb)
        bar.set_postfix(loss=f"{run_loss / seen:.4f}", acc=f"{100.0 * run_correct / seen:.2f}", refresh=False)
    bar.close()
    scheduler.step()
    val_loss, val_acc = evaluate()
    tqdm.write(f"Epoch {epoch + 1}: train_loss {run_loss / seen:.4f}  train_acc {100.0 * run_correct / seen:.2f}%  "
               f"val_loss {val_loss:.4f}  val_acc {100.0 * val_acc:.2f}%  lr {scheduler.get_last_lr()[0]:.5f}")

print(f" * Acc@1 {100.0 * val_acc:.3f}")
