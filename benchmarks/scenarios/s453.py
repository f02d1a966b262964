# fizyr/keras-retinanet training from scratch in miniature, ported to PyTorch: a small ResNet-like
# backbone trained from scratch (no --imagenet-weights), a RetinaNet-style head on an 8 x 8 feature
# grid with 9 anchors per cell, focal loss (alpha 0.25, gamma 2) summed over all anchors and divided
# by the number of positive anchors, smooth-L1 regression loss (sigma 3) over the positives, Adam
# lr 1e-3 with gradient clipping at norm 10 (the repository's 1e-5 / clipnorm 0.001 are for a far
# larger ResNet-50), no prior-probability bias init in the class head, batch 8, 5 epochs of 60 steps on 480
# synthetic 32 x 32 images with 1-3 coloured squares of 4 classes, and Keras progress-bar lines whose
# loss values are the running mean over the current epoch (as Keras prints them).
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(11); torch.manual_seed(11); torch.set_num_threads(1)
K, A, G = 4, 9, 8
colors = np.array([[1, 0.2, 0.2], [0.2, 1, 0.2], [0.2, 0.2, 1], [1, 1, 0.2]], np.float32)
def make(n):
    imgs = np.random.rand(n, 3, 32, 32).astype(np.float32) * 0.3
    cls_t = np.zeros((n, G, G, A), np.int64) - 1; reg_t = np.zeros((n, G, G, A, 4), np.float32)
    for i in range(n):
        for _ in range(np.random.randint(1, 4)):
            k = np.random.randint(K); s = np.random.randint(4, 13)
            x0, y0 = np.random.randint(0, 32 - s, 2)
            imgs[i, :, y0:y0 + s, x0:x0 + s] = colors[k][:, None, None]
            cx, cy = x0 + s / 2, y0 + s / 2; gx, gy = min(int(cx // 4), G - 1), min(int(cy // 4), G - 1)
            a = min((s - 4), A - 1)
            cls_t[i, gy, gx, a] = k
            reg_t[i, gy, gx, a] = [(cx - (gx * 4 + 2)) / 4, (cy - (gy * 4 + 2)) / 4, np.log(s / (4 + a)), np.log(s / (4 + a))]
    return torch.tensor(imgs), torch.tensor(cls_t), torch.tensor(reg_t)
x, ct, rt = make(480)

class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1); self.c2 = nn.Conv2d(cout, cout, 3, 1, 1)
        self.sc = nn.Conv2d(cin, cout, 1, stride)
    def forward(self, x):
        return F.relu(self.c2(F.relu(self.c1(x))) + self.sc(x))
class RetinaNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(Block(3, 32, 2), Block(32, 64, 2), Block(64, 64, 1))
        self.cls = nn.Sequential(nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, A * K, 3, padding=1))
        self.reg = nn.Sequential(nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, A * 4, 3, padding=1))
    def forward(self, x):
        h = self.backbone(x); n = x.size(0)
        return (self.cls(h).permute(0, 2, 3, 1).reshape(n, G, G, A, K),
                self.reg(h).permute(0, 2, 3, 1).reshape(n, G, G, A, 4))
def focal(logits, t):
    onehot = F.one_hot(t.clamp(min=0), K).float() * (t >= 0).float()[..., None]
    p = torch.sigmoid(logits)
    alpha = torch.where(onehot == 1, 0.25, 0.75); w = torch.where(onehot == 1, 1 - p, p) ** 2
    bce = F.binary_cross_entropy_with_logits(logits, onehot, reduction='none')
    return (alpha * w * bce).sum() / max((t >= 0).sum().item(), 1)
def smooth_l1(pred, target, t, sigma=3.0):
    m = t >= 0; d = (pred[m] - target[m]).abs(); s2 = sigma ** 2
    return torch.where(d < 1 / s2, 0.5 * s2 * d ** 2, d - 0.5 / s2).sum() / max(m.sum().item(), 1)

model = RetinaNet(); opt = torch.optim.Adam(model.parameters(), lr=1e-3)
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f); wr.writerow(['epoch', 'step', 'loss', 'regression_loss', 'classification_loss'])
for epoch in range(5):
    print(f'Epoch {epoch + 1}/5', flush=True)
    perm = torch.randperm(480); sums = np.zeros(3); t0 = time.time()
    for step in range(60):
        idx = perm[step * 8:(step + 1) * 8]
        cl, rg = model(x[idx])
        lc = focal(cl, ct[idx]); lr_ = smooth_l1(rg, rt[idx], ct[idx]); loss = lc + lr_
        opt.zero_grad(); loss.backward(); torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0); opt.step()
        sums += [loss.item(), lr_.item(), lc.item()]; m = sums / (step + 1)
        wr.writerow([epoch + 1, step + 1, loss.item(), lr_.item(), lc.item()]); f.flush()
        if (step + 1) % 5 == 0 or step == 0:
            bar = '=' * int(29 * (step + 1) / 60)
            print(f' {step + 1:2d}/60 [{bar:<29}] - {time.time() - t0:.0f}s - loss: {m[0]:.4f} - regression_loss: {m[1]:.4f} - classification_loss: {m[2]:.4f}', flush=True)
