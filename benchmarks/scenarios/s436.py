# GengDavid/pytorch-cpn (Cascaded Pyramid Network) 256.192.model trained from scratch, in miniature:
# COCO person crops are replaced by 1 x 64 x 48 synthetic stick figures (17 keypoints on a jittered
# body template, limbs drawn as lines, random scale/shift, noise), 1024 training and 256 validation
# crops; targets are 17 Gaussian heatmaps at 1/4 resolution (16 x 12) rescaled so that each peak is
# 255, as the repository's data loader does; a small conv backbone with a GlobalNet head and a
# RefineNet head stands in for ResNet-50 + FPN; loss = MSE(global) / 2 + online hard keypoint mining
# MSE over the 8 worst keypoints of the refine output, as in train.py; Adam lr 5e-4, batch 32,
# 8 epochs, "iteration i | loss: ..., avg loss: ..." lines and a validation PCK (argmax within 1 cell)
# per epoch.
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

rng = np.random.RandomState(14); torch.manual_seed(14); torch.set_num_threads(1)
H, W, h, w, K = 64, 48, 16, 12, 17
TPL = np.array([[0, 0], [-1, -1], [1, -1], [-2, 0], [2, 0], [-4, 6], [4, 6], [-7, 13], [7, 13], [-9, 20], [9, 20],
                [-3, 20], [3, 20], [-3, 31], [3, 31], [-3, 42], [3, 42]], np.float32)
LIMBS = [(5, 6), (5, 7), (7, 9), (6, 8), (8, 10), (5, 11), (6, 12), (11, 12), (11, 13), (13, 15), (12, 14), (14, 16), (0, 5), (0, 6)]
yy, xx = np.mgrid[0:H, 0:W].astype(np.float32); hy, hx = np.mgrid[0:h, 0:w].astype(np.float32)
def sample():
    s = rng.uniform(0.8, 1.1); c = np.array([rng.uniform(18, 30), rng.uniform(6, 12)], np.float32)
    kp = c + s * TPL + rng.randn(K, 2) * 1.2
    img = np.zeros((H, W), np.float32)
    for a, b in LIMBS:
        for t in np.linspace(0, 1, 20):
            x, y = kp[a] + t * (kp[b] - kp[a]); img[int(np.clip(y, 0, H - 1)), int(np.clip(x, 0, W - 1))] = 1.0
    for k in range(K): img[int(np.clip(kp[k, 1], 0, H - 2)):int(np.clip(kp[k, 1], 0, H - 2)) + 2, int(np.clip(kp[k, 0], 0, W - 2)):int(np.clip(kp[k, 0], 0, W - 2)) + 2] = 2.0
    hm = np.exp(-((hx[None] - kp[:, 0, None, None] / 4) ** 2 + (hy[None] - kp[:, 1, None, None] / 4) ** 2) / (2 * 1.0 ** 2))
    hm = hm / hm.reshape(K, -1).max(1)[:, None, None] * 255
    return img[None], hm.astype(np.float32), kp / 4
def make(n):
    a = [sample() for _ in range(n)]
    g = torch.tensor(np.exp(-(np.arange(-2, 3)[:, None] ** 2 + np.arange(-2, 3)[None] ** 2) / 2.0), dtype=torch.float32)[None, None]
    imgs = F.conv2d(torch.tensor(np.stack([x[0] for x in a])), g, padding=2)
    imgs = imgs.clamp(0, 2) + 0.3 * torch.tensor(rng.randn(n, 1, H, W), dtype=torch.float32)
    return imgs, torch.tensor(np.stack([x[1] for x in a])), torch.tensor(np.stack([x[2] for x in a]), dtype=torch.float32)
Xtr, Ytr, _ = make(1024); Xva, Yva, Kva = make(256)

def cbr(i, o, s=1): return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))
class CPN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.c2, self.c3 = nn.Sequential(cbr(1, 32, 2), cbr(32, 32)), nn.Sequential(cbr(32, 64, 2), cbr(64, 64)), nn.Sequential(cbr(64, 96, 2), cbr(96, 96))
        self.lat2, self.lat3 = nn.Conv2d(64, 64, 1), nn.Conv2d(96, 64, 1)
        self.global_head = nn.Sequential(cbr(64, 64), nn.Conv2d(64, K, 3, 1, 1))
        self.refine = nn.Sequential(cbr(64 + K, 64), cbr(64, 64), nn.Conv2d(64, K, 3, 1, 1))
    def forward(self, x):
        f2 = self.c2(self.c1(x)); f3 = self.c3(f2)
        p = self.lat2(f2) + F.interpolate(self.lat3(f3), size=f2.shape[-2:], mode='bilinear', align_corners=False)
        g = self.global_head(p); r = self.refine(torch.cat([p, g], 1))
        return g, r
model = CPN(); criterion1 = nn.MSELoss(); optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
def ohkm(out, tgt, topk=8):
    per_kp = ((out - tgt) ** 2).mean((2, 3))
    return per_kp.topk(topk, dim=1)[0].mean()
def pck():
    model.eval()
    with torch.no_grad():
        _, r = model(Xva)
    model.train()
    idx = r.flatten(2).argmax(2); py, px = (idx // w).float(), (idx % w).float()
    d = ((px - Kva[..., 0]) ** 2 + (py - Kva[..., 1]) ** 2).sqrt()
    return (d <= 1.0).float().mean().item()
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'iteration', 'loss', 'avg_loss', 'global_loss', 'refine_loss', 'val_pck'])
it = 0
for epoch in range(8):
    print('\nEpoch: %d | LR: %.8f' % (epoch + 1, 5e-4))
    perm = torch.randperm(1024); tot = 0.0; n = 0
    for j in range(0, 1024, 32):
        b = perm[j:j + 32]; g, r = model(Xtr[b])
        global_loss = criterion1(g, Ytr[b]) / 2.0; refine_loss = ohkm(r, Ytr[b]); loss = global_loss + refine_loss
        optimizer.zero_grad(); loss.backward(); optimizer.step(); it += 1; tot += loss.item(); n += 1
        if it % 10 == 0:
            print('iteration {} | loss: {:.4f}, avg loss: {:.4f}'.format(it, loss.item(), tot / n))
            wr.writerow([epoch + 1, it, loss.item(), tot / n, global_loss.item(), refine_loss.item(), ''])
    v = pck(); print('epoch {} | train avg loss: {:.4f} | val PCK@1: {:.4f}'.format(epoch + 1, tot / n, v))
    wr.writerow([epoch + 1, it, '', tot / n, '', '', v])
