# wizyoung/YOLOv3_TensorFlow issue "exponential lr" in miniature, ported from TensorFlow to PyTorch:
# train.py with args.py's learning-rate settings (optimizer adam, learning_rate_init 1e-3,
# lr_type 'exponential', lr_decay_epoch 5, lr_decay_factor 0.96, lr_lower_bound 1e-6,
# use_warm_up True, warm_up_epoch 3): during the first warm_up_epoch * train_batch_num steps the
# learning rate is learning_rate_init * global_step / warm-up steps, so it grows linearly, and only
# afterwards the staircase exponential decay starts. The training lines follow train.py
# ("Epoch: {}, global_step: {} | loss: total: ..., xy: ..., wh: ..., conf: ..., class: ... |
# Last batch: rec: ..., prec: ... | lr: ...") every train_evaluation_step steps, and the epoch-end
# validation ("======> Epoch: ..., global_step: ..., lr: ... <======" with the validation loss and
# recall / precision). A small single-scale YOLO-style detector (8 x 8 grid, one anchor, 2 classes)
# on 400 synthetic 64 x 64 pictures with one or two objects (+100 validation pictures) replaces
# Darknet-53 on the user's data; batch_size 20, 12 epochs, train_evaluation_step 10.
import csv
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
rs = np.random.RandomState(0)

### args.py (scaled)
batch_size = 20
img_size = 64
grid = 8
stride = img_size // grid
anchor = 16.0
class_num = 2
total_epoches = 12
train_evaluation_step = 10
learning_rate_init = 1e-3
lr_type = 'exponential'
lr_decay_epoch = 5
lr_decay_factor = 0.96
lr_lower_bound = 1e-6
use_warm_up = True
warm_up_epoch = 3

yy, xx = np.mgrid[:img_size, :img_size].astype(np.float32)


def make_set(n):
    X = np.zeros((n, 3, img_size, img_size), np.float32)
    boxes = []
    for i in range(n):
        X[i] = 0.3 + 0.1 * rs.rand(3, 1, 1) + 0.06 * rs.randn(3, img_size, img_size)
        bb = []
        for _ in range(rs.randint(1, 3)):
            c = rs.randint(class_num)
            w, h = rs.uniform(10, 26, 2)
            cx, cy = rs.uniform(w / 2, img_size - w / 2), rs.uniform(h / 2, img_size - h / 2)
            if c == 0:   # filled rectangle
                m = (abs(xx - cx) < w / 2) & (abs(yy - cy) < h / 2)
            else:        # ellipse
                m = ((xx - cx) / (w / 2)) ** 2 + ((yy - cy) / (h / 2)) ** 2 < 1
            col = rs.uniform(0.6, 1.0, 3).astype(np.float32)
            X[i][:, m] = col[:, None]
            bb.append((cx, cy, w, h, c))
        boxes.append(bb)
    return torch.from_numpy(np.clip(X, 0, 1)), boxes


train_X, train_boxes = make_set(400)
val_X, val_boxes = make_set(100)
train_img_cnt = len(train_boxes)
train_batch_num = int(math.ceil(float(train_img_cnt) / batch_size))
lr_decay_freq = int(train_batch_num * lr_decay_epoch)


def y_true_of(bboxes):
    y = torch.zeros(len(bboxes), grid, grid, 5 + class_num)
    for b, bb in enumerate(bboxes):
        for (cx, cy, w, h, c) in bb:
            gx, gy = int(cx // stride), int(cy // stride)
            y[b, gy, gx, 0] = cx / stride - gx
            y[b, gy, gx, 1] = cy / stride - gy
            y[b, gy, gx, 2] = math.log(w / anchor)
            y[b, gy, gx, 3] = math.log(h / anchor)
            y[b, gy, gx, 4] = 1.
            y[b, gy, gx, 5 + c] = 1.
    return y


class YOLOv3Small(nn.Module):
    def __init__(self):
        super().__init__()
        def cbl(i, o, s):
            return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.LeakyReLU(0.1))
        self.body = nn.Sequential(cbl(3, 12, 1), cbl(12, 24, 2), cbl(24, 24, 1), cbl(24, 48, 2),
                                  cbl(48, 48, 1), cbl(48, 96, 2), cbl(96, 96, 1))
        self.head = nn.Conv2d(96, 5 + class_num, 1)

    def forward(self, x):
        return self.head(self.body(x)).permute(0, 2, 3, 1)


def compute_loss(pred, y):
    obj = y[..., 4:5]
    n = pred.size(0)
    xy = (obj * F.binary_cross_entropy_with_logits(pred[..., 0:2], y[..., 0:2], reduction='none')).sum() / n
    wh = (obj * (pred[..., 2:4] - y[..., 2:4]) ** 2).sum() / n
    conf = F.binary_cross_entropy_with_logits(pred[..., 4], y[..., 4], reduction='sum') / n
    cls = (obj * F.binary_cross_entropy_with_logits(pred[..., 5:], y[..., 5:], reduction='none')).sum() / n
    return xy + wh + conf + cls, xy, wh, conf, cls


def decode(pred):
    out = []
    p = pred.detach()
    for b in range(p.size(0)):
        boxes = []
        conf = torch.sigmoid(p[b, ..., 4])
        for gy, gx in (conf > 0.5).nonzero().tolist():
            t = p[b, gy, gx]
            cx = (torch.sigmoid(t[0]).item() + gx) * stride
            cy = (torch.sigmoid(t[1]).item() + gy) * stride
            w, h = anchor * math.exp(t[2].item()), anchor * math.exp(t[3].item())
            boxes.append((cx, cy, w, h, int(t[5:].argmax())))
        out.append(boxes)
    return out


def iou(a, b):
    ax0, ay0, ax1, ay1 = a[0] - a[2] / 2, a[1] - a[3] / 2, a[0] + a[2] / 2, a[1] + a[3] / 2
    bx0, by0, bx1, by1 = b[0] - b[2] / 2, b[1] - b[3] / 2, b[0] + b[2] / 2, b[1] + b[3] / 2
    iw, ih = max(0, min(ax1, bx1) - max(ax0, bx0)), max(0, min(ay1, by1) - max(ay0, by0))
    inter = iw * ih
    return inter / (a[2] * a[3] + b[2] * b[3] - inter + 1e-9)


def rec_prec(pred, bboxes):
    det = decode(pred)
    tp = npred = ngt = 0
    for d, g in zip(det, bboxes):
        npred += len(d); ngt += len(g)
        used = set()
        for pb in d:
            for j, gb in enumerate(g):
                if j not in used and pb[4] == gb[4] and iou(pb, gb) >= 0.5:
                    used.add(j); tp += 1; break
    return tp / max(ngt, 1), tp / max(npred, 1)


def config_learning_rate(global_step):
    if lr_type == 'exponential':
        lr_tmp = learning_rate_init * lr_decay_factor ** (global_step // lr_decay_freq)
        return max(lr_tmp, lr_lower_bound)
    return learning_rate_init


def learning_rate_at(global_step):
    if use_warm_up and global_step < train_batch_num * warm_up_epoch:
        return learning_rate_init * global_step / (train_batch_num * warm_up_epoch)
    return config_learning_rate(global_step - train_batch_num * warm_up_epoch)


class AverageMeter:
    def __init__(self): self.reset()
    def reset(self): self.sum, self.count, self.average = 0., 0, 0.
    def update(self, v, n=1):
        self.sum += v * n; self.count += n; self.average = self.sum / self.count


model = YOLOv3Small()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate_init, weight_decay=5e-4)
f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['epoch', 'global_step', 'lr', 'loss', 'loss_xy', 'loss_wh', 'loss_conf', 'loss_class',
             'val_loss', 'val_recall', 'val_precision'])
global_step = 0
for epoch in range(total_epoches):
    model.train()
    loss_total, loss_xy, loss_wh, loss_conf, loss_class = (AverageMeter() for _ in range(5))
    perm = rs.permutation(train_img_cnt)
    for i in range(train_batch_num):
        idx = perm[i * batch_size:(i + 1) * batch_size]
        x = train_X[idx]
        bb = [train_boxes[k] for k in idx]
        y = y_true_of(bb)
        __lr = learning_rate_at(global_step)
        for g in optimizer.param_groups:
            g['lr'] = __lr
        pred = model(x)
        loss = compute_loss(pred, y)
        optimizer.zero_grad()
        loss[0].backward()
        optimizer.step()
        global_step += 1
        for m, v in zip((loss_total, loss_xy, loss_wh, loss_conf, loss_class), loss):
            m.update(v.item(), len(idx))
        row = [epoch, global_step, '%.6g' % __lr] + ['%.5f' % v.item() for v in loss] + ['', '', '']
        if global_step % train_evaluation_step == 0 and global_step > 0:
            recall, precision = rec_prec(pred, bb)
            info = "Epoch: {}, global_step: {} | loss: total: {:.2f}, xy: {:.2f}, wh: {:.2f}, conf: {:.2f}, class: {:.2f} | ".format(
                epoch, int(global_step), loss_total.average, loss_xy.average, loss_wh.average, loss_conf.average, loss_class.average)
            info += 'Last batch: rec: {:.3f}, prec: {:.3f} | lr: {:.5g}'.format(recall, precision, __lr)
            print(info, flush=True)
        if i == train_batch_num - 1:
            model.eval()
            with torch.no_grad():
                vp = model(val_X)
                vl = compute_loss(vp, y_true_of(val_boxes))[0].item()
                vr, vpr = rec_prec(vp, val_boxes)
            print('======> Epoch: {}, global_step: {}, lr: {:.6g} <======'.format(epoch, global_step, __lr))
            print('Validation: loss: {:.3f}, recall: {:.3f}, precision: {:.3f}'.format(vl, vr, vpr), flush=True)
            row[-3:] = ['%.5f' % vl, '%.4f' % vr, '%.4f' % vpr]
        wr.writerow(row)
f.close()
