# FRRN-style semantic segmentation in miniature, after the TensorFlow FRRN (full-resolution residual network)
# Cityscapes implementation: a small fully convolutional net (conv-BN-ReLU x4 with a residual full-resolution stream,
# 16 channels, 1x1 classifier) on synthetic 32x32 street-like scenes with 3 classes (background, road band, car
# blobs), raw 0-255-like pixel intensities with per-image lighting, no input normalisation. Batch normalisation is
# written by hand as in the TF graph: batch statistics in training, moving mean/variance in evaluation; the moving
# averages are meant to be updated by an "update op" that the training step never runs. Adam lr 1e-3, batch 16,
# 12 epochs of 30 iterations. Prints train loss and pixel accuracy (training mode) and validation loss, pixel accuracy
# and mean IoU (evaluation mode) per epoch, writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(330)
S, C = 32, 3


def scenes(n):
    X = torch.zeros(n, 3, S, S); Y = torch.zeros(n, S, S, dtype=torch.long)
    yy, xx = torch.meshgrid(torch.arange(S), torch.arange(S), indexing='ij')
    for k in range(n):
        light = 0.6 + 0.8 * torch.rand(1, generator=g).item()
        r0 = int(torch.randint(14, 24, (1,), generator=g)); slope = (torch.rand(1, generator=g).item() - 0.5) * 0.4
        road = yy >= (r0 + slope * (xx - 16)).long()
        Y[k][road] = 1
        for _ in range(int(torch.randint(1, 4, (1,), generator=g))):
            cx, cy = int(torch.randint(4, 28, (1,), generator=g)), int(torch.randint(8, 28, (1,), generator=g))
            car = ((xx - cx).abs() <= 3) & ((yy - cy).abs() <= 2)
            Y[k][car] = 2
        base = torch.tensor([[120., 140., 110.], [90., 90., 95.], [180., 40., 40.]])  # bg, road, car colours
        img = base[Y[k]].permute(2, 0, 1) + 25 * torch.randn(3, S, S, generator=g)
        X[k] = img * light
    return X, Y


class HandBN(nn.Module):
    def __init__(self, c, decay=0.99):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(c)); self.beta = nn.Parameter(torch.zeros(c))
        self.register_buffer('moving_mean', torch.zeros(c)); self.register_buffer('moving_var', torch.ones(c))
        self.decay = decay

    def update_op(self, m, v):  # the assign ops that tf.GraphKeys.UPDATE_OPS would collect
        self.moving_mean.mul_(self.decay).add_((1 - self.decay) * m)
        self.moving_var.mul_(self.decay).add_((1 - self.decay) * v)

    def forward(self, x):
        if self.training:
            m, v = x.mean((0, 2, 3)), x.var((0, 2, 3), unbiased=False)
            self.last_stats = (m.detach(), v.detach())
        else:
            m, v = self.moving_mean, self.moving_var
        return self.gamma[:, None, None] * (x - m[:, None, None]) / torch.sqrt(v[:, None, None] + 1e-3) + self.beta[:, None, None]


class FRRN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.ModuleList([nn.Conv2d(3, 16, 3, padding=1)] + [nn.Conv2d(16, 16, 3, padding=1) for _ in range(3)])
        self.bn = nn.ModuleList([HandBN(16) for _ in range(4)])
        self.pool_path = nn.Conv2d(16, 16, 3, padding=1)
        self.cls = nn.Conv2d(16, C, 1)

    def forward(self, x):
        h = F.relu(self.bn[0](self.c[0](x)))
        full = h
        z = F.max_pool2d(h, 2)
        z = F.relu(self.bn[1](self.c[1](z)))
        z = F.relu(self.bn[2](self.c[2](z)))
        full = full + F.interpolate(self.pool_path(z), scale_factor=2)  # residual stream at full resolution
        h = F.relu(self.bn[3](self.c[3](full)))
        return self.cls(h)


def miou(pred, y):
    ious = []
    for c in range(C):
        inter = ((pred == c) & (y == c)).sum().item(); union = ((pred == c) | (y == c)).sum().item()
        if union: ious.append(inter / union)
    return sum(ious) / len(ious)


Xtr, Ytr = scenes(480)
Xva, Yva = scenes(96)
model = FRRN()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
rows = []
for epoch in range(1, 13):
    model.train()
    tl, ta = [], []
    for it in range(30):
        i = torch.randint(0, len(Xtr), (16,), generator=g)
        out = model(Xtr[i])
        loss = F.cross_entropy(out, Ytr[i])
        opt.zero_grad(); loss.backward(); opt.step()
        # missing: for bn in model.bn: bn.update_op(*bn.last_stats)   (the UPDATE_OPS dependency was never added)
        tl.append(loss.item()); ta.append((out.argmax(1) == Ytr[i]).float().mean().item())
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, Yva).item()
        pred = out.argmax(1)
        va = (pred == Yva).float().mean().item(); vm = miou(pred, Yva)
    r = dict(epoch=epoch, train_loss=sum(tl) / len(tl), train_acc=sum(ta) / len(ta), val_loss=vl, val_acc=va, val_miou=vm)
    rows.append(r)
    print(f"epoch {epoch:2d} train loss {r['train_loss']:.4f} acc {r['train_acc']:.3f} | val loss {vl:.4f} acc {va:.3f} mIoU {vm:.3f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
