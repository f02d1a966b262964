# HED (holistically-nested edge detection) in miniature, after s9xie/hed: a small VGG-like fully convolutional
# net (3 stages, 8/16/32 channels) with a 1x1 side output per stage, upsampled to full resolution, and a learned
# 1x1 fusion of the side outputs. Data: synthetic 40x40 grayscale scenes of overlapping shaded rectangles and
# discs with texture noise; the ground-truth edge maps are the region boundaries as traced by a "human annotator"
# (boundaries jittered by one pixel and partly missing, like BSDS labels). Loss: the HED class-balanced sigmoid
# cross-entropy, summed over all pixels of an image and over the 4 outputs (3 sides + fuse), mean over the batch.
# Adam lr 1e-3, batch 8, 14 epochs of 40 iterations. Prints train loss, val loss and val edge F-score (fused
# output, threshold 0.5, 1-pixel tolerance) per epoch, writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(327)
S = 40


def make_scene():
    img = torch.full((S, S), 0.5) + 0.1 * torch.randn(S, S, generator=g)
    reg = torch.zeros(S, S, dtype=torch.long)
    yy, xx = torch.meshgrid(torch.arange(S), torch.arange(S), indexing='ij')
    for k in range(1, 5):
        if torch.rand(1, generator=g) < 0.5:
            x0, y0 = torch.randint(0, S - 12, (2,), generator=g).tolist()
            w, h = torch.randint(8, 20, (2,), generator=g).tolist()
            m = (xx >= x0) & (xx < x0 + w) & (yy >= y0) & (yy < y0 + h)
        else:
            cx, cy = torch.randint(6, S - 6, (2,), generator=g).tolist()
            r = torch.randint(4, 11, (1,), generator=g).item()
            m = (xx - cx) ** 2 + (yy - cy) ** 2 < r * r
        shade = torch.rand(1, generator=g).item()
        img[m] = shade + 0.12 * torch.randn(int(m.sum()), generator=g)
        reg[m] = k
    edge = torch.zeros(S, S)
    edge[:, 1:] += (reg[:, 1:] != reg[:, :-1]).float()
    edge[1:, :] += (reg[1:, :] != reg[:-1, :]).float()
    edge = (edge > 0).float()
    # annotator: shift the traced boundary by one pixel here and there, miss some of it
    sh = torch.roll(edge, shifts=(int(torch.randint(-1, 2, (1,), generator=g)), int(torch.randint(-1, 2, (1,), generator=g))), dims=(0, 1))
    pick = torch.rand(S, S, generator=g) < 0.35
    lab = torch.where(pick, sh, edge)
    lab = lab * (torch.rand(S, S, generator=g) > 0.15).float()
    return img.unsqueeze(0), lab.unsqueeze(0), edge.unsqueeze(0)


def make_set(n):
    xs, ys, es = zip(*[make_scene() for _ in range(n)])
    return torch.stack(xs), torch.stack(ys), torch.stack(es)


Xtr, Ytr, _ = make_set(320)
Xva, Yva, Eva = make_set(80)
print(f'train {len(Xtr)} images, val {len(Xva)} images, edge pixel fraction {Ytr.mean():.3f}')


class HED(nn.Module):
    def __init__(self):
        super().__init__()
        def stage(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.ReLU(), nn.Conv2d(o, o, 3, padding=1), nn.ReLU())
        self.s1, self.s2, self.s3 = stage(1, 8), stage(8, 16), stage(16, 32)
        self.side = nn.ModuleList([nn.Conv2d(c, 1, 1) for c in (8, 16, 32)])
        self.fuse = nn.Conv2d(3, 1, 1)

    def forward(self, x):
        f1 = self.s1(x)
        f2 = self.s2(F.max_pool2d(f1, 2))
        f3 = self.s3(F.max_pool2d(f2, 2))
        sides = [F.interpolate(s(f), size=x.shape[-2:], mode='bilinear', align_corners=False)
                 for s, f in zip(self.side, (f1, f2, f3))]
        return sides + [self.fuse(torch.cat(sides, 1))]


def balanced_bce(logit, y):
    beta = 1.0 - y.mean(dim=(1, 2, 3), keepdim=True)  # fraction of non-edge pixels
    w = torch.where(y > 0.5, beta, 1.0 - beta)
    return (F.binary_cross_entropy_with_logits(logit, y, weight=w, reduction='none')).sum(dim=(1, 2, 3)).mean()


def hed_loss(outs, y):
    return sum(balanced_bce(o, y) for o in outs)


def fscore(pred, edge):
    # 1-pixel tolerance: a predicted edge pixel is correct if a true edge is within 1 pixel and vice versa
    near_true = F.max_pool2d(edge, 3, 1, 1)
    near_pred = F.max_pool2d(pred, 3, 1, 1)
    p = (pred * near_true).sum() / pred.sum().clamp(min=1)
    r = (edge * near_pred).sum() / edge.sum().clamp(min=1)
    return (2 * p * r / (p + r).clamp(min=1e-8)).item()


model = HED()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
rows = []
for epoch in range(1, 15):
    model.train()
    tl = []
    for it in range(40):
        idx = torch.randint(0, len(Xtr), (8,), generator=g)
        loss = hed_loss(model(Xtr[idx]), Ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tl.append(loss.item())
    model.eval()
    with torch.no_grad():
        outs = model(Xva)
        vl = hed_loss(outs, Yva).item()
        f = fscore((torch.sigmoid(outs[-1]) > 0.5).float(), Eva)
    r = dict(epoch=epoch, train_loss=sum(tl) / len(tl), val_loss=vl, val_f=f)
    rows.append(r)
    print(f"epoch {epoch:2d} train loss {r['train_loss']:.1f} | val loss {vl:.1f} | val edge F {f:.3f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
