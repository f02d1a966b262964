# fastai/fastai issue '"Expected more than 1 value per channel when training".' in miniature, ported to plain
# PyTorch: the user's fastai 1.0.22 script, ImageDataBunch.create(train_ds, val_ds, test_ds, bs=bs, size=..)
# .normalize(..), learn = create_cnn(data, senet154, ps=0.5, cut=-2), learn.model = nn.DataParallel(learn.model),
# SaveModel(every='improvement', monitor='val_loss') and learn.fit_one_cycle(5, lrs). create_cnn keeps the body of the
# network (cut=-2 drops the pooling and the classifier) and adds fastai's head: AdaptiveConcatPool2d (average and max
# pooling concatenated), Flatten, BatchNorm1d, Dropout(ps/2), Linear(.., 512), ReLU, BatchNorm1d(512), Dropout(ps),
# Linear(512, n_classes); fit_one_cycle uses Adam with the one-cycle schedule (cosine warm-up over 30 % of the
# iterations to lrs, then cosine annealing to lrs / 25e4, beta1 going 0.95 -> 0.85 -> 0.95). The training DataLoader
# of that fastai version did not use drop_last, so when the training set size leaves a remainder of 1 the last batch
# of the first epoch holds a single image and the head's BatchNorm1d, in training mode, raises "ValueError: Expected
# more than 1 value per channel when training, got input size torch.Size([1, 128])" (exit 1) before the epoch can
# finish. Scaled down: a 6-block squeeze-and-excitation ResNet of 16-64 channels instead of senet154 (no pretrained
# weights can be downloaded), 32 x 32 synthetic pictures of 4 classes (a shape drawn on a textured background) instead
# of the user's 512 x 512 images, bs = 16 and 161 training / 48 validation pictures (10 full batches and one of 1);
# the per-batch line "epoch 1 batch i/11 loss .. lr .." stands in for the progress bar, and the table row
# "epoch train_loss valid_loss accuracy" would follow each epoch. metrics.csv has the per-batch loss and learning rate.
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)

bs, n_classes, epochs, lrs, ps = 16, 4, 5, 1e-2, 0.5


# ---------------------------------------------------------------- synthetic pictures
def picture(c, r):
    yy, xx = np.mgrid[0:32, 0:32] / 32.0
    img = 0.4 + 0.1 * np.sin(xx * r.uniform(5, 15) + r.uniform(0, 6)) * np.cos(yy * r.uniform(5, 15))
    img = np.repeat(img[None], 3, 0) * r.uniform(0.7, 1.2, (3, 1, 1))
    cx, cy, s = r.uniform(0.3, 0.7), r.uniform(0.3, 0.7), r.uniform(0.12, 0.25)
    if c == 0:
        m = (xx - cx) ** 2 + (yy - cy) ** 2 < s ** 2
    elif c == 1:
        m = (abs(xx - cx) < s) & (abs(yy - cy) < s)
    elif c == 2:
        m = (abs(xx - cx) + abs(yy - cy)) < s
    else:
        m = ((abs(xx - cx) < s / 3) | (abs(yy - cy) < s / 3)) & (abs(xx - cx) < s) & (abs(yy - cy) < s)
    img[:, m] = r.uniform(0.6, 1.0, (3, 1))
    return (img + r.normal(0, 0.05, img.shape)).astype(np.float32)


rs = np.random.RandomState(1)
ytr, yva = rs.randint(0, n_classes, 161), rs.randint(0, n_classes, 48)
xtr = np.stack([picture(c, rs) for c in ytr]); xva = np.stack([picture(c, rs) for c in yva])
mean, std = xtr.mean((0, 2, 3), keepdims=True), xtr.std((0, 2, 3), keepdims=True)     # .normalize(stats)
train_ds = TensorDataset(torch.tensor((xtr - mean) / std), torch.tensor(ytr))
val_ds = TensorDataset(torch.tensor((xva - mean) / std), torch.tensor(yva))
train_dl = DataLoader(train_ds, batch_size=bs, shuffle=True)                           # no drop_last
valid_dl = DataLoader(val_ds, batch_size=bs * 2)


# ---------------------------------------------------------------- body (SE-ResNet) and create_cnn head
class SEBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False); self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False); self.b2 = nn.BatchNorm2d(cout)
        self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(cout, cout // 4, 1), nn.ReLU(),
                                nn.Conv2d(cout // 4, cout, 1), nn.Sigmoid())
        self.down = None if (cin == cout and stride == 1) else nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.b2(self.c2(F.relu(self.b1(self.c1(x)))))
        out = out * self.se(out)
        return F.relu(out + (x if self.down is None else self.down(x)))


class SENet(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.layer0 = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.layer1 = nn.Sequential(SEBlock(16, 16, 1), SEBlock(16, 16, 1))
        self.layer2 = nn.Sequential(SEBlock(16, 32, 2), SEBlock(32, 32, 1))
        self.layer3 = nn.Sequential(SEBlock(32, 64, 2), SEBlock(64, 64, 1))
        self.avg_pool = nn.AdaptiveAvgPool2d(1)
        self.last_linear = nn.Linear(64, num_classes)


class AdaptiveConcatPool2d(nn.Module):
    def forward(self, x):
        return torch.cat([F.adaptive_max_pool2d(x, 1), F.adaptive_avg_pool2d(x, 1)], 1)


def create_cnn(arch, ps=0.5, cut=-2):
    body = nn.Sequential(*list(arch().children())[:cut])
    nf = 64 * 2
    head = nn.Sequential(AdaptiveConcatPool2d(), nn.Flatten(), nn.BatchNorm1d(nf), nn.Dropout(ps / 2),
                         nn.Linear(nf, 512), nn.ReLU(inplace=True), nn.BatchNorm1d(512), nn.Dropout(ps),
                         nn.Linear(512, n_classes))
    return nn.Sequential(body, head)


model = nn.DataParallel(create_cnn(SENet, ps=ps, cut=-2))
opt = torch.optim.Adam(model.parameters(), lr=lrs / 25, betas=(0.95, 0.99), weight_decay=0.01)
n_iter = epochs * len(train_dl)


def one_cycle(i, pct_start=0.3, div=25.0, final_div=25e4):
    w = int(n_iter * pct_start)
    cos = lambda a, b, p: b + (a - b) / 2 * (1 + math.cos(math.pi * p))
    if i < w:
        return cos(lrs / div, lrs, i / w), cos(0.95, 0.85, i / w)
    return cos(lrs, lrs / final_div, (i - w) / (n_iter - w)), cos(0.85, 0.95, (i - w) / (n_iter - w))


f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'iteration', 'train_loss', 'lr', 'valid_loss', 'accuracy']); f.flush()
print('epoch  train_loss  valid_loss  accuracy')
it, best = 0, float('inf')
for epoch in range(1, epochs + 1):
    model.train(); tot = 0.0
    for b, (x, y) in enumerate(train_dl, 1):
        lr, mom = one_cycle(it)
        for g in opt.param_groups:
            g['lr'], g['betas'] = lr, (mom, 0.99)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item(); it += 1
        print('epoch %d batch %d/%d loss %.4f lr %.2e' % (epoch, b, len(train_dl), loss.item(), lr))
        wr.writerow([epoch, it, round(loss.item(), 5), lr, '', '']); f.flush()
    model.eval(); vl, acc, n = 0.0, 0, 0
    with torch.no_grad():
        for x, y in valid_dl:
            out = model(x); vl += F.cross_entropy(out, y, reduction='sum').item()
            acc += (out.argmax(1) == y).sum().item(); n += len(y)
    print('%d      %.6f    %.6f    %.6f' % (epoch, tot / len(train_dl), vl / n, acc / n))
    wr.writerow([epoch, it, '', '', round(vl / n, 5), round(acc / n, 4)]); f.flush()
    if vl / n < best:
        best = vl / n                                             # SaveModel(every='improvement')
f.close()
