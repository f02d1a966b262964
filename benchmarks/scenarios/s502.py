# backseason/PoolNet (solver.py, main.py, dataset/dataset.py) in miniature: salient object detection trained with
# the repository's Solver.train(): batch_size 1 ("only support 1 now") on images of their original, varying sizes,
# sal_loss = F.binary_cross_entropy_with_logits(sal_pred, sal_label, reduction='sum') / (iter_size * batch_size),
# gradients accumulated over iter_size = 10 images before each Adam step (lr 5e-5 for resnet, weight_decay 5e-4),
# random horizontal flip, mean-subtracted BGR input, the learning rate divided by 10 after epoch 15 of 24
# (lr_decay_epoch = [15,]), and every show_every = 50 images the line "epoch: [e/E], iter: [i/N]  ||  Sal : value"
# followed by "Learning rate: ...", where value is r_sal_loss / x_showEvery with x_showEvery = 1, i.e. the sum of the
# last 50 per-image losses. Scaled down: a small encoder-decoder with top-down pyramid fusion and no BatchNorm
# stands in for PoolNet-ResNet50 (no pretrained backbone, so Adam lr 2e-4), 8 epochs with the decay after epoch 5,
# 240 synthetic training images of 40-96 pixels per side (one or two salient blobs on textured backgrounds) replace
# DUTS-TR; the repository evaluates only after training, so a per-epoch MAE / max F-measure on 50 held-out images
# is added here.
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(1); np.random.seed(1); torch.set_num_threads(1)
rs = np.random.RandomState(1)

def sample():
    h, w = rs.randint(5, 13) * 8, rs.randint(5, 13) * 8
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    bg = rs.uniform(60, 190, 3).astype(np.float32)
    img = np.ones((h, w, 3), np.float32) * bg + rs.normal(0, 18, (h, w, 3)).astype(np.float32)
    img += (np.sin(xx[..., None] / rs.uniform(2, 6) + rs.uniform(0, 6)) * rs.uniform(5, 25)).astype(np.float32)
    lab = np.zeros((h, w), np.float32)
    for _ in range(rs.randint(1, 3)):
        cx, cy = rs.uniform(0.25, 0.75) * w, rs.uniform(0.25, 0.75) * h
        rx, ry = rs.uniform(0.1, 0.3) * w, rs.uniform(0.1, 0.3) * h; a = rs.uniform(0, np.pi)
        u = ((xx - cx) * np.cos(a) + (yy - cy) * np.sin(a)) / rx; v = (-(xx - cx) * np.sin(a) + (yy - cy) * np.cos(a)) / ry
        m = u ** 2 + v ** 2 < 1 + 0.25 * np.sin(5 * np.arctan2(v, u))
        col = np.clip(bg + rs.choice([-1, 1], 3) * rs.uniform(40, 90, 3), 0, 255)
        img[m] = col + rs.normal(0, 12, (int(m.sum()), 3)); lab[m] = 1
    img = np.clip(img, 0, 255) - np.array((104.00699, 116.66877, 122.67892), np.float32)   # load_image: mean subtraction
    return torch.tensor(img.transpose(2, 0, 1).copy())[None], torch.tensor(lab)[None, None]

train_set = [sample() for _ in range(240)]; test_set = [sample() for _ in range(50)]

def conv(i, o): return nn.Sequential(nn.Conv2d(i, o, 3, 1, 1), nn.ReLU(inplace=True))

class PoolNetLite(nn.Module):                              # stand-in for PoolNet (ResNet-50 + GGM + FAMs)
    def __init__(self):
        super().__init__()
        self.e1, self.e2, self.e3 = nn.Sequential(conv(3, 16), conv(16, 16)), nn.Sequential(conv(16, 32), conv(32, 32)), nn.Sequential(conv(32, 48), conv(48, 48))
        self.ggm = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(48, 48, 1), nn.ReLU(inplace=True))
        self.l3, self.l2, self.l1 = nn.Conv2d(48, 32, 1), nn.Conv2d(32, 32, 1), nn.Conv2d(16, 32, 1)
        self.fam2, self.fam1 = conv(32, 32), conv(32, 32)
        self.score = nn.Conv2d(32, 1, 1)
    def forward(self, x):
        x = x / 64.0
        c1 = self.e1(x); c2 = self.e2(F.max_pool2d(c1, 2)); c3 = self.e3(F.max_pool2d(c2, 2))
        p3 = self.l3(c3 + self.ggm(c3))
        p2 = self.fam2(self.l2(c2) + F.interpolate(p3, size=c2.shape[2:], mode='bilinear', align_corners=True))
        p1 = self.fam1(self.l1(c1) + F.interpolate(p2, size=c1.shape[2:], mode='bilinear', align_corners=True))
        return self.score(p1)

class Config: epoch, batch_size, iter_size, show_every, lr, wd = 8, 1, 10, 50, 2e-4, 0.0005
config = Config()
net = PoolNetLite()
for m in net.modules():                                     # weights_init
    if isinstance(m, nn.Conv2d): nn.init.kaiming_normal_(m.weight); nn.init.zeros_(m.bias)
lr, wd, lr_decay_epoch = config.lr, config.wd, [5, ]
optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, net.parameters()), lr=lr, weight_decay=wd)

def evaluate():
    net.eval(); maes, P, R = [], np.zeros(20), np.zeros(20)
    with torch.no_grad():
        for img, lab in test_set:
            pred = torch.sigmoid(net(img))[0, 0].numpy(); gt = lab[0, 0].numpy()
            maes.append(np.abs(pred - gt).mean())
            for k, t in enumerate(np.linspace(0.025, 0.975, 20)):
                b = pred > t; tp = (b & (gt > 0.5)).sum()
                P[k] += tp / max(b.sum(), 1); R[k] += tp / max(gt.sum(), 1)
    net.train(); P /= len(test_set); R /= len(test_set)
    return float(np.mean(maes)), float(np.max(1.3 * P * R / np.maximum(0.3 * P + R, 1e-9)))

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'iter', 'sal_loss', 'image_pixels', 'shown_sal', 'test_mae', 'test_maxF', 'lr'])
iter_num = len(train_set) // config.batch_size
aveGrad = 0
net.train()
for epoch in range(config.epoch):
    r_sal_loss = 0
    net.zero_grad()
    order = rs.permutation(len(train_set))
    for i, k in enumerate(order):
        sal_image, sal_label = train_set[k]
        if rs.rand() < 0.5: sal_image, sal_label = sal_image.flip(-1), sal_label.flip(-1)     # cv_random_flip
        sal_pred = net(sal_image)
        sal_loss_fuse = F.binary_cross_entropy_with_logits(sal_pred, sal_label, reduction='sum')
        sal_loss = sal_loss_fuse / (config.iter_size * config.batch_size)
        r_sal_loss += sal_loss.data
        sal_loss.backward()
        aveGrad += 1
        # accumulate gradients as done in DSS
        if aveGrad % config.iter_size == 0:
            optimizer.step()
            optimizer.zero_grad()
            aveGrad = 0
        shown = ''
        if i % (config.show_every // config.batch_size) == 0:
            if i == 0:
                x_showEvery = 1
            shown = float(r_sal_loss / x_showEvery)
            print('epoch: [%2d/%2d], iter: [%5d/%5d]  ||  Sal : %10.4f' % (epoch, config.epoch, i, iter_num, r_sal_loss / x_showEvery))
            print('Learning rate: ' + str(lr))
            r_sal_loss = 0
        wr.writerow([epoch, epoch * iter_num + i, round(sal_loss.item(), 4), sal_label.numel(),
                     '' if shown == '' else round(shown, 4), '', '', lr])
    mae, maxf = evaluate()
    print('epoch %d done: test MAE %.4f, max F-measure %.4f' % (epoch, mae, maxf), flush=True)
    wr.writerow([epoch, (epoch + 1) * iter_num, '', '', '', round(mae, 4), round(maxf, 4), lr])
    if epoch in lr_decay_epoch:
        lr = lr * 0.1
        optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, net.parameters()), lr=lr, weight_decay=wd)
f.close()
