# xingyizhou/CenterNet (src/lib/trains/base_trainer.py + ctdet.py) re-organised for a custom data set,
# in miniature: a small stride-4 fully convolutional backbone with CenterNet's three heads (hm with the
# -2.19 prior bias, wh, reg), the ctdet loss (penalty-reduced focal loss on the clamped sigmoid heatmap,
# RegL1Loss on wh with weight 0.1 and on the offset with weight 1), SGD lr 0.01 momentum 0.9, batch 16, 6 epochs
# of 40 iterations, CenterNet-style progress lines with the epoch-average AverageMeter values
# ("ctdet/default |####| ... |loss ... |hm_loss ... |wh_loss ... |off_loss ...") and the per-epoch log line
# ("epoch: N |loss ... | hm_loss ... | wh_loss ... | off_loss ... | time ..."). 3 classes of coloured
# rectangles on synthetic 64 x 64 images (16 x 16 output). The re-organised loop steps the optimizer after
# backward() but never zeroes the gradients.
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(3); torch.manual_seed(3); torch.set_num_threads(1)
C, R, S = 3, 64, 16          # classes, input size, output size (down_ratio 4)
MAX_OBJS = 8
colors = np.array([[1, .25, .25], [.25, 1, .25], [.3, .3, 1]], np.float32)

def gaussian_radius(h, w, min_overlap=0.7):
    a1 = 1; b1 = h + w; c1 = w * h * (1 - min_overlap) / (1 + min_overlap)
    r1 = (b1 + np.sqrt(b1 ** 2 - 4 * a1 * c1)) / 2
    a2 = 4; b2 = 2 * (h + w); c2 = (1 - min_overlap) * w * h
    r2 = (b2 + np.sqrt(b2 ** 2 - 4 * a2 * c2)) / 2
    a3 = 4 * min_overlap; b3 = -2 * min_overlap * (h + w); c3 = (min_overlap - 1) * w * h
    r3 = (b3 + np.sqrt(b3 ** 2 - 4 * a3 * c3)) / 2
    return min(r1, r2, r3)
def draw_gaussian(hm, cx, cy, radius):
    d = 2 * radius + 1; sigma = d / 6
    ys, xs = np.ogrid[:S, :S]
    g = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma * sigma))
    g[np.abs(xs - cx).repeat(S, 0) > radius] = 0; g[(np.abs(ys - cy).repeat(S, 1)) > radius] = 0
    np.maximum(hm, g, out=hm)

def make(n):
    img = np.random.rand(n, 3, R, R).astype(np.float32) * 0.35
    hm = np.zeros((n, C, S, S), np.float32); wh = np.zeros((n, MAX_OBJS, 2), np.float32)
    reg = np.zeros((n, MAX_OBJS, 2), np.float32); ind = np.zeros((n, MAX_OBJS), np.int64)
    mask = np.zeros((n, MAX_OBJS), np.float32)
    for i in range(n):
        for k in range(np.random.randint(1, 4)):
            c = np.random.randint(C); w, h = np.random.randint(8, 25, 2)
            x0 = np.random.randint(0, R - w); y0 = np.random.randint(0, R - h)
            img[i, :, y0:y0 + h, x0:x0 + w] = colors[c][:, None, None] * np.random.uniform(.8, 1)
            cx, cy = (x0 + w / 2) / 4, (y0 + h / 2) / 4; ci, cj = int(cx), int(cy)
            r = max(0, int(gaussian_radius(h / 4, w / 4)))
            draw_gaussian(hm[i, c], ci, cj, r)
            wh[i, k] = w / 4, h / 4; reg[i, k] = cx - ci, cy - cj; ind[i, k] = cj * S + ci; mask[i, k] = 1
    return [torch.tensor(a) for a in (img, hm, wh, reg, ind, mask)]
data = make(640)
N = len(data[0])

def conv_bn(cin, cout, s=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, s, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))
class PoseNet(nn.Module):
    def __init__(self, heads, head_conv=32):
        super().__init__()
        self.base = nn.Sequential(conv_bn(3, 16), conv_bn(16, 32, 2), conv_bn(32, 32), conv_bn(32, 64, 2), conv_bn(64, 64))
        self.heads = heads
        for head, classes in heads.items():
            fc = nn.Sequential(nn.Conv2d(64, head_conv, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(head_conv, classes, 1))
            if 'hm' in head: fc[-1].bias.data.fill_(-2.19)
            self.__setattr__(head, fc)
    def forward(self, x):
        x = self.base(x)
        return [{head: self.__getattr__(head)(x) for head in self.heads}]

def _sigmoid(x):
    return torch.clamp(x.sigmoid_(), min=1e-4, max=1 - 1e-4)
def _neg_loss(pred, gt):
    pos_inds = gt.eq(1).float(); neg_inds = gt.lt(1).float(); neg_weights = torch.pow(1 - gt, 4)
    pos_loss = (torch.log(pred) * torch.pow(1 - pred, 2) * pos_inds).sum()
    neg_loss = (torch.log(1 - pred) * torch.pow(pred, 2) * neg_weights * neg_inds).sum()
    num_pos = pos_inds.sum()
    return -neg_loss if num_pos == 0 else -(pos_loss + neg_loss) / num_pos
def _transpose_and_gather_feat(feat, ind):
    feat = feat.permute(0, 2, 3, 1).contiguous().view(feat.size(0), -1, feat.size(1))
    return feat.gather(1, ind.unsqueeze(2).expand(ind.size(0), ind.size(1), feat.size(2)))
def reg_l1(output, mask, ind, target):
    pred = _transpose_and_gather_feat(output, ind); m = mask.unsqueeze(2).expand_as(pred).float()
    return F.l1_loss(pred * m, target * m, reduction='sum') / (m.sum() + 1e-4)
class CtdetLoss(nn.Module):
    def forward(self, outputs, batch):
        output = outputs[0]; output['hm'] = _sigmoid(output['hm'])
        hm_loss = _neg_loss(output['hm'], batch['hm'])
        wh_loss = reg_l1(output['wh'], batch['reg_mask'], batch['ind'], batch['wh'])
        off_loss = reg_l1(output['reg'], batch['reg_mask'], batch['ind'], batch['reg'])
        loss = hm_loss + 0.1 * wh_loss + 1 * off_loss
        return loss, {'loss': loss, 'hm_loss': hm_loss, 'wh_loss': wh_loss, 'off_loss': off_loss}

class AverageMeter:
    def __init__(self): self.sum = 0; self.count = 0; self.avg = 0
    def update(self, val, n=1): self.sum += val * n; self.count += n; self.avg = self.sum / self.count

model = PoseNet({'hm': C, 'wh': 2, 'reg': 2})
loss_fn = CtdetLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
batch_size, num_epochs = 16, 6
num_iters = N // batch_size
loss_stats = ['loss', 'hm_loss', 'wh_loss', 'off_loss']

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'iter', 'loss', 'hm_loss', 'wh_loss', 'off_loss'])
for epoch in range(1, num_epochs + 1):
    model.train(); t0 = time.time()
    avg = {l: AverageMeter() for l in loss_stats}
    perm = torch.randperm(N)
    for it in range(num_iters):
        idx = perm[it * batch_size:(it + 1) * batch_size]
        batch = dict(zip(['input', 'hm', 'wh', 'reg', 'ind', 'reg_mask'], [d[idx] for d in data]))
        outputs = model(batch['input'])
        loss, loss_stat = loss_fn(outputs, batch)
        loss = loss.mean()
        loss.backward()
        optimizer.step()
        for l in avg: avg[l].update(loss_stat[l].mean().item(), batch_size)
        wr.writerow([epoch, (epoch - 1) * num_iters + it + 1] + [round(loss_stat[l].item(), 5) for l in loss_stats]); f.flush()
        if (it + 1) % 10 == 0:
            print('ctdet/default |{}| [{}][{}/{}]|Tot: {:.0f}s |'.format('#' * int(20 * (it + 1) / num_iters), epoch, it + 1, num_iters, time.time() - t0)
                  + ''.join('{} {:.4f} |'.format(l, avg[l].avg) for l in loss_stats), flush=True)
    print('epoch: {} |'.format(epoch) + ''.join('{} {:8f} | '.format(l, avg[l].avg) for l in loss_stats)
          + 'time {:.2f} | '.format((time.time() - t0) / 60.), flush=True)
