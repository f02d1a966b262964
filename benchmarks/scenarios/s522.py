# jd730/OICR-pytorch issue "rising loss issue" in miniature: OICR (online instance classifier refinement) for
# weakly supervised detection as in the repository's trainval_net.py: a MIDN head (WSDDN: a classification stream
# with a softmax over classes and a detection stream with a softmax over proposals, their product summed into
# image scores, binary cross entropy against the image-level labels) and K = 3 refinement classifiers with C + 1
# outputs, each trained on pseudo labels from the previous stage: for every class in the image the top-scoring
# proposal of the previous stage is taken, proposals with IoU >= 0.5 to it get its class, the others background,
# and every proposal's cross-entropy is weighted by the previous stage's score of that top proposal (Eq. 4 of the
# OICR paper); the total loss is midn_loss + oicr_loss1 + oicr_loss2 + oicr_loss3, SGD lr 0.001 (x10 here because
# of the small network) momentum 0.9 weight decay 5e-4, one image per iteration, and the faster-rcnn.pytorch style
# log line "[session 1][epoch %2d][iter %4d/%4d] loss: %.4f, lr: %.2e" followed by the per-head losses. The VGG16 /
# RoI-pooling features of the selective-search proposals are replaced by synthetic 48-dim proposal features (a
# class prototype scaled by the proposal's overlap with each object plus part and clutter features and noise);
# 400 training and 100 held-out synthetic 64 x 64 images with one or two of 5 object classes, 40 proposals each;
# CorLoc on the held-out images (the mean of the refinement classifiers, as at test time) after every epoch.
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
rs = np.random.RandomState(0)
C, R, D = 5, 40, 48
PROTO = rs.randn(C, D).astype(np.float32)
PART = rs.randn(C, D).astype(np.float32)

def iou(a, b):                                                     # a: (n,4), b: (m,4)
    x1 = np.maximum(a[:, None, 0], b[None, :, 0]); y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2]); y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = lambda z: (z[:, 2] - z[:, 0]) * (z[:, 3] - z[:, 1])
    return inter / (area(a)[:, None] + area(b)[None, :] - inter), inter / area(a)[:, None]

def make_image():
    n = rs.randint(1, 3)
    cls = rs.choice(C, n, replace=False)
    boxes = []
    for _ in range(n):
        w, h = rs.uniform(18, 34, 2); x, y = rs.uniform(0, 64 - w), rs.uniform(0, 64 - h)
        boxes.append([x, y, x + w, y + h])
    boxes = np.array(boxes, np.float32)
    props = []
    for _ in range(R):                                             # selective-search-like proposals
        if rs.rand() < 0.5:
            b = boxes[rs.randint(n)]; w, h = b[2] - b[0], b[3] - b[1]
            s = rs.uniform(0.35, 1.25)                             # parts, hits, and loose boxes
            cx, cy = rs.uniform(b[0], b[2]), rs.uniform(b[1], b[3])
            if s > 0.8: cx, cy = (b[0] + b[2]) / 2 + rs.randn() * 3, (b[1] + b[3]) / 2 + rs.randn() * 3
            props.append([cx - s * w / 2, cy - s * h / 2, cx + s * w / 2, cy + s * h / 2])
        else:
            w, h = rs.uniform(8, 40, 2); x, y = rs.uniform(0, 64 - w), rs.uniform(0, 64 - h)
            props.append([x, y, x + w, y + h])
    props = np.clip(np.array(props, np.float32), 0, 64)
    props[:, 2:] = np.maximum(props[:, 2:], props[:, :2] + 2)
    ov, ioa = iou(props, boxes)
    feat = rs.randn(R, D).astype(np.float32) * 0.7
    for j, c in enumerate(cls):
        feat += (1.6 * ov[:, j:j + 1]) * PROTO[c] + (1.2 * ioa[:, j:j + 1] * (ov[:, j:j + 1] < 0.5)) * PART[c]
    label = np.zeros(C, np.float32); label[cls] = 1
    return dict(feat=feat, props=props, boxes=boxes, gt_cls=cls, label=label)

train = [make_image() for _ in range(400)]
heldout = [make_image() for _ in range(100)]

class OICR(nn.Module):
    def __init__(self, K=3):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, 128), nn.ReLU())
        self.midn_cls = nn.Linear(128, C); self.midn_det = nn.Linear(128, C)
        self.refine = nn.ModuleList([nn.Linear(128, C + 1) for _ in range(K)])
    def forward(self, x):
        h = self.fc(x)
        s = F.softmax(self.midn_cls(h), 1) * F.softmax(self.midn_det(h), 0)
        return s, [F.softmax(r(h), 1) for r in self.refine]

def oicr_labels(props, prev, label):
    """pseudo labels and weights for one refinement stage (Eq. 4): prev is (R, C) scores"""
    lab = np.zeros(R, np.int64); w = np.zeros(R, np.float32)
    tops, tcls, tw = [], [], []
    for c in np.where(label > 0)[0]:
        j = int(prev[:, c].argmax()); tops.append(props[j]); tcls.append(c); tw.append(float(prev[j, c]))
    ov, _ = iou(props, np.array(tops))
    best = ov.argmax(1); mx = ov.max(1)
    for r in range(R):
        w[r] = tw[best[r]]
        lab[r] = tcls[best[r]] + 1 if mx[r] >= 0.5 else 0
    return torch.from_numpy(lab), torch.from_numpy(w)

def corloc(model):
    model.eval(); hit = tot = 0
    with torch.no_grad():
        for im in heldout:
            _, ref = model(torch.from_numpy(im['feat']))
            p = torch.stack(ref).mean(0)[:, 1:].numpy()
            for c in im['gt_cls']:
                j = p[:, c].argmax()
                ov, _ = iou(im['props'][j:j + 1], im['boxes'][im['gt_cls'] == c])
                hit += int(ov.max() >= 0.5); tot += 1
    model.train()
    return hit / tot

model = OICR()
lr = 0.01
opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4)
wr = csv.writer(open('metrics.csv', 'w', newline=''))
wr.writerow(['epoch', 'iter', 'loss', 'midn_loss', 'oicr_loss1', 'oicr_loss2', 'oicr_loss3', 'corloc'])
print('Loaded %d training images, %d held-out images, %d proposals each' % (len(train), len(heldout), R))
print('held-out CorLoc before training: %.4f' % corloc(model), flush=True)
epochs, disp = 8, 100
it_total = 0
for epoch in range(1, epochs + 1):
    if epoch == 7:
        for g in opt.param_groups: g['lr'] = lr * 0.1
    order = rs.permutation(len(train))
    acc = np.zeros(5); n = 0
    for step, idx in enumerate(order):
        im = train[idx]
        x = torch.from_numpy(im['feat']); y = torch.from_numpy(im['label'])
        s, ref = model(x)
        img_score = s.sum(0).clamp(1e-6, 1 - 1e-6)
        midn_loss = F.binary_cross_entropy(img_score, y)
        prev = s.detach().numpy(); losses = []
        for k in range(3):
            lab, w = oicr_labels(im['props'], prev, im['label'])
            lk = -(w * torch.log(ref[k].gather(1, lab[:, None]).squeeze(1).clamp(min=1e-6))).mean()
            losses.append(lk); prev = ref[k].detach().numpy()[:, 1:]
        loss = midn_loss + sum(losses)
        opt.zero_grad(); loss.backward(); opt.step(); it_total += 1
        vals = [loss.item(), midn_loss.item()] + [l.item() for l in losses]
        acc += vals; n += 1
        if (step + 1) % disp == 0:
            a = acc / n
            print('[session 1][epoch %2d][iter %4d/%4d] loss: %.4f, lr: %.2e' % (epoch, step + 1, len(train), a[0],
                  opt.param_groups[0]['lr']))
            print('\t\t\tmidn_loss: %.4f, oicr_loss1: %.4f, oicr_loss2: %.4f, oicr_loss3: %.4f' % tuple(a[1:]), flush=True)
            wr.writerow([epoch, it_total] + ['%.6f' % v for v in a] + [''])
            acc[:] = 0; n = 0
    cl = corloc(model)
    print('epoch %d: held-out CorLoc %.4f' % (epoch, cl), flush=True)
    wr.writerow([epoch, it_total, '', '', '', '', '', '%.4f' % cl])
