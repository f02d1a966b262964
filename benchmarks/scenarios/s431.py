# Project-MONAI research-contributions Swin UNETR BTCV multi-organ segmentation colab tutorial in
# miniature, 2-D instead of 3-D: 4-class segmentation (background + 3 "organs": ellipses of different
# intensity/texture with noise) on 32 x 32 synthetic slices, 240 training and 40 validation images, a
# small U-Net-style network (two down / two up blocks, BatchNorm) standing in for SwinUNETR, DiceCELoss
# (softmax Dice + cross entropy), AdamW lr 1e-4 -> here 1e-3, weight_decay 1e-5, batch 4, 10 epochs,
# the tutorial's train_epoch() lines "Epoch e/10 i/60 loss: <running average> time ...s" and a
# validation mean Dice per epoch. train_epoch() is written as in the colab:
#     logits = model(data); loss = loss_func(logits, target); loss.backward(); optimizer.step()
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(392); torch.manual_seed(392); torch.set_num_threads(1)
K, S = 4, 32
yy, xx = np.mgrid[0:S, 0:S].astype(np.float32)
def make(n):
    X = np.zeros((n, 1, S, S), np.float32); Y = np.zeros((n, S, S), np.int64)
    for i in range(n):
        for k in range(1, K):
            cy, cx = np.random.uniform(6, 26, 2); ry, rx = np.random.uniform(3, 7, 2)
            m = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 < 1
            Y[i][m] = k; X[i, 0][m] = 0.35 * k
        X[i, 0] += 0.25 * np.random.randn(S, S)
    return torch.tensor(X), torch.tensor(Y)
Xtr, Ytr = make(240); Xva, Yva = make(40)
def block(ci, co): return nn.Sequential(nn.Conv2d(ci, co, 3, padding=1), nn.BatchNorm2d(co), nn.ReLU(), nn.Conv2d(co, co, 3, padding=1), nn.BatchNorm2d(co), nn.ReLU())
class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.e1, self.e2, self.b = block(1, 16), block(16, 32), block(32, 64)
        self.u2, self.d2 = nn.ConvTranspose2d(64, 32, 2, 2), block(64, 32)
        self.u1, self.d1 = nn.ConvTranspose2d(32, 16, 2, 2), block(32, 16)
        self.out = nn.Conv2d(16, K, 1)
    def forward(self, x):
        e1 = self.e1(x); e2 = self.e2(F.max_pool2d(e1, 2)); b = self.b(F.max_pool2d(e2, 2))
        d2 = self.d2(torch.cat([self.u2(b), e2], 1)); d1 = self.d1(torch.cat([self.u1(d2), e1], 1))
        return self.out(d1)
def dice_ce(logits, target):
    p = logits.softmax(1); oh = F.one_hot(target, K).permute(0, 3, 1, 2).float()
    inter = (p * oh).sum((2, 3)); den = p.sum((2, 3)) + oh.sum((2, 3))
    return (1 - (2 * inter + 1e-5) / (den + 1e-5)).mean() + F.cross_entropy(logits, target)
def mean_dice(pred, target):
    ds = []
    for k in range(1, K):
        a, b = pred == k, target == k
        ds.append((2 * (a & b).sum().item() + 1e-5) / (a.sum().item() + b.sum().item() + 1e-5))
    return float(np.mean(ds))
model = UNet(); optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-5)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'step', 'loss', 'running_loss', 'val_dice'])
max_epochs, gstep = 10, 0
for epoch in range(1, max_epochs + 1):
    model.train(); perm = torch.randperm(len(Xtr)); run, n = 0.0, 0; start_time = time.time()
    for idx in range(60):
        b = perm[idx * 4:(idx + 1) * 4]
        logits = model(Xtr[b]); loss = dice_ce(logits, Ytr[b])
        loss.backward(); optimizer.step(); gstep += 1
        run += loss.item(); n += 1
        if idx % 10 == 9:
            print('Epoch {}/{} {}/{}'.format(epoch, max_epochs, idx + 1, 60), 'loss: {:.4f}'.format(run / n), 'time {:.2f}s'.format(time.time() - start_time))
            wr.writerow([epoch, gstep, loss.item(), run / n, ''])
    model.eval()
    with torch.no_grad():
        d = mean_dice(model(Xva).argmax(1), Yva)
    print('Final training  {}/{}'.format(epoch, max_epochs), 'loss: {:.4f}'.format(run / n), 'val mean dice: {:.4f}'.format(d))
    wr.writerow([epoch, gstep, '', run / n, d])
