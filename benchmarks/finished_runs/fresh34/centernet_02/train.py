import os
import sys
import time
import math
import datetime
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(7)
np.random.seed(7)

CLASSES = ['square', 'ring']
NUM_CLASSES = 2
INPUT = 24
STRIDE = 2
OUT = INPUT // STRIDE
EPOCHS = 12
BATCH_SIZE = 8
LR = 1e-3
N_TRAIN, N_VAL = 640, 160

# ---------------- synthetic detection data: filled squares and rings on a noisy background ----------------
rng = np.random.RandomState(7)
def draw(n):
    imgs = np.zeros((n, 1, INPUT, INPUT), np.float32)
    boxes = []
    for k in range(n):
        img = rng.uniform(0.0, 0.25) + rng.normal(0, 0.12, (INPUT, INPUT))
        bs = []
        for _ in range(rng.randint(1, 4)):
            c = rng.randint(NUM_CLASSES)
            w, h = rng.randint(4, 9), rng.randint(4, 9)
            x0, y0 = rng.randint(0, INPUT - w + 1), rng.randint(0, INPUT - h + 1)
            v = rng.uniform(0.6, 1.0)
            if c == 0:
                img[y0:y0 + h, x0:x0 + w] += v
            else:
                img[y0:y0 + h, x0:x0 + w] += v
                img[y0 + 1:y0 + h - 1, x0 + 1:x0 + w - 1] -= v
            bs.append((x0, y0, x0 + w, y0 + h, c))
        imgs[k, 0] = img
        boxes.append(bs)
    return imgs, boxes

def gaussian_radius(h, w, min_overlap=0.7):
    a1 = 1; b1 = h + w; c1 = w * h * (1 - min_overlap) / (1 + min_overlap)
    r1 = (b1 + math.sqrt(b1 ** 2 - 4 * a1 * c1)) / 2
    a2 = 4; b2 = 2 * (h + w); c2 = (1 - min_overlap) * w * h
    r2 = (b2 + math.sqrt(b2 ** 2 - 4 * a2 * c2)) / 2
    a3 = 4 * min_overlap; b3 = -2 * min_overlap * (h + w); c3 = (min_overlap - 1) * w * h
    r3 = (b3 + math.sqrt(b3 ** 2 - 4 * a3 * c3)) / 2
    return min(r1, r2, r3)

def encode(boxes):
    n = len(boxes)
    hm = np.zeros((n, NUM_CLASSES, OUT, OUT), np.float32)
    wh = np.zeros((n, 2, OUT, OUT), np.float32)
    reg = np.zeros((n, 2, OUT, OUT), np.float32)
    mask = np.zeros((n, OUT, OUT), np.float32)
    ys, xs = np.mgrid[0:OUT, 0:OUT]
    for k, bs in enumerate(boxes):
        for (x0, y0, x1, y1, c) in bs:
            w, h = (x1 - x0) / STRIDE, (y1 - y0) / STRIDE
            cx, cy = (x0 + x1) / 2 / STRIDE, (y0 + y1) / 2 / STRIDE
            ix, iy = min(int(cx), OUT - 1), min(int(cy), OUT - 1)
            r = max(0, int(gaussian_radius(math.ceil(h), math.ceil(w))))
            sigma = (2 * r + 1) / 6
            g = np.exp(-((xs - ix) ** 2 + (ys - iy) ** 2) / (2 * sigma * sigma))
            g[np.abs(xs - ix) > r] = 0
            g[np.abs(ys - iy) > r] = 0
            hm[k, c] = np.maximum(hm[k, c], g)
            wh[k, :, iy, ix] = (w, h)
            reg[k, :, iy, ix] = (cx - ix, cy - iy)
            mask[k, iy, ix] = 1
    return hm, wh, reg, mask

def preprocess_input(image):
    return (image - 0.25) / 0.35

train_imgs, train_boxes = draw(N_TRAIN)
val_imgs, val_boxes = draw(N_VAL)
train_t = [torch.tensor(a) for a in (preprocess_input(train_imgs),) + encode(train_boxes)]
val_t = [torch.tensor(a) for a in (preprocess_input(val_imgs),) + encode(val_boxes)]

# ---------------- model: small conv backbone, CenterNet heads ----------------
def conv_bn(i, o, s=1):
    return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

class CenterNet_Small(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.backbone = nn.Sequential(conv_bn(1, 16), conv_bn(16, 32, 2), conv_bn(32, 32), conv_bn(32, 32))
        self.cls_head = nn.Sequential(nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(32, num_classes, 1))
        self.wh_head = nn.Sequential(nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(32, 2, 1))
        self.reg_head = nn.Sequential(nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(32, 2, 1))
        self.cls_head[-1].bias.data.fill_(-2.19)

    def forward(self, x):
        f = self.backbone(x)
        return self.cls_head(f), self.wh_head(f), self.reg_head(f)

def focal_loss(pred, target):
    pred = pred.permute(0, 2, 3, 1)
    target = target.permute(0, 2, 3, 1)
    pos_inds = target.eq(1).float()
    neg_inds = target.lt(1).float()
    neg_weights = torch.pow(1 - target, 4)
    pred = torch.clamp(pred, 1e-6, 1 - 1e-6)
    pos_loss = torch.log(pred) * torch.pow(1 - pred, 2) * pos_inds
    neg_loss = torch.log(1 - pred) * torch.pow(pred, 2) * neg_weights * neg_inds
    num_pos = pos_inds.float().sum()
    pos_loss = pos_loss.sum()
    neg_loss = neg_loss.sum()
    if num_pos == 0:
        loss = -neg_loss
    else:
        loss = -(pos_loss + neg_loss) / num_pos
    return loss

def reg_l1_loss(pred, target, mask):
    pred = pred.permute(0, 2, 3, 1)
    target = target.permute(0, 2, 3, 1)
    expand_mask = torch.unsqueeze(mask, -1).repeat(1, 1, 1, 2)
    loss = F.l1_loss(pred * expand_mask, target * expand_mask, reduction='sum')
    loss = loss / (mask.sum() + 1e-4)
    return loss

def decode_bbox(hm, wh, reg, confidence=0.3, topk=20):
    hmax = F.max_pool2d(hm, 3, stride=1, padding=1)
    hm = hm * (hmax == hm).float()
    dets = []
    for b in range(hm.shape[0]):
        scores, inds = hm[b].reshape(-1).topk(topk)
        out = []
        for s, i in zip(scores.tolist(), inds.tolist()):
            if s < confidence:
                continue
            c, rem = divmod(i, OUT * OUT)
            y, x = divmod(rem, OUT)
            w, h = wh[b, 0, y, x].item(), wh[b, 1, y, x].item()
            cx, cy = x + reg[b, 0, y, x].item(), y + reg[b, 1, y, x].item()
            out.append(((cx - w / 2) * STRIDE, (cy - h / 2) * STRIDE, (cx + w / 2) * STRIDE, (cy + h / 2) * STRIDE, s, c))
        dets.append(out)
    return dets

def iou(a, b):
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0])); iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    ua = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / ua if ua > 0 else 0.0

def get_map(all_dets, all_gts, iou_thr=0.5):
    aps = []
    for c in range(NUM_CLASSES):
        dets = [(d[4], k, d) for k, ds in enumerate(all_dets) for d in ds if d[5] == c]
        dets.sort(key=lambda t: -t[0])
        gts = {k: [g for g in gs if g[4] == c] for k, gs in enumerate(all_gts)}
        npos = sum(len(v) for v in gts.values())
        used = {k: [False] * len(v) for k, v in gts.items()}
        tp, fp = [], []
        for s, k, d in dets:
            best, bj = 0, -1
            for j, g in enumerate(gts[k]):
                o = iou(d, g)
                if o > best:
                    best, bj = o, j
            if best >= iou_thr and not used[k][bj]:
                used[k][bj] = True; tp.append(1); fp.append(0)
            else:
                tp.append(0); fp.append(1)
        tp, fp = np.cumsum(tp), np.cumsum(fp)
        rec = tp / max(npos, 1)
        prec = tp / np.maximum(tp + fp, 1e-9)
        mrec = np.concatenate([[0], rec, [1]]); mpre = np.concatenate([[0], prec, [0]])
        for i in range(len(mpre) - 2, -1, -1):
            mpre[i] = max(mpre[i], mpre[i + 1])
        idx = np.where(mrec[1:] != mrec[:-1])[0]
        aps.append(float(np.sum((mrec[idx + 1] - mrec[idx]) * mpre[idx + 1])))
    return aps

def batches(tensors, bs, shuffle):
    n = tensors[0].shape[0]
    order = torch.randperm(n) if shuffle else torch.arange(n)
    for i in range(0, n - (bs - 1 if shuffle else 0), bs):
        idx = order[i:i + bs]
        yield [t[idx] for t in tensors]

def evaluate_map(model, postprocess_sigmoid=True):
    model.eval()
    with torch.no_grad():
        hm, wh, reg = model(val_t[0])
        if postprocess_sigmoid:
            hm = hm.sigmoid()
        dets = decode_bbox(hm, wh, reg)
    model.train()
    return get_map(dets, val_boxes)

model = CenterNet_Small(NUM_CLASSES)
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=5e-4)
lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS, eta_min=LR * 0.01)

class AverageMeter(object):
    """Computes and stores the average and current value"""
    def __init__(self):
        self.reset()
    def reset(self):
        self.val = 0; self.avg = 0; self.sum = 0; self.count = 0
    def update(self, val, n=1):
        self.val = val; self.sum += val * n; self.count += n
        self.avg = self.sum / self.count if self.count > 0 else 0

class opts:
    task = 'ctdet'
    exp_id = 'default'
    arch = 'small_4'
    head_conv = 32
    down_ratio = STRIDE
    input_res = INPUT
    lr = LR
    batch_size = BATCH_SIZE
    num_epochs = EPOCHS
    hm_weight = 1
    wh_weight = 0.1
    off_weight = 1
    mse_loss = False
    print_iter = 10
    val_intervals = 1
    hide_data_time = False
    def __repr__(self):
        return 'Namespace(' + ', '.join('%s=%r' % (k, getattr(self, k)) for k in dir(self) if not k.startswith('_')) + ')'
opt = opts()

def _sigmoid(x):
    y = torch.clamp(x.sigmoid_(), min=1e-4, max=1 - 1e-4)
    return y

class CtdetLoss(torch.nn.Module):
    def __init__(self, opt):
        super(CtdetLoss, self).__init__()
        self.crit = torch.nn.MSELoss() if opt.mse_loss else focal_loss
        self.opt = opt
    def forward(self, outputs, batch):
        opt = self.opt
        hm, wh, reg = outputs
        if not opt.mse_loss:
            hm = _sigmoid(hm)
        hm_loss = self.crit(hm, batch[1])
        wh_loss = reg_l1_loss(wh, batch[2], batch[4])
        off_loss = reg_l1_loss(reg, batch[3], batch[4])
        loss = opt.hm_weight * hm_loss + opt.wh_weight * wh_loss + opt.off_weight * off_loss
        loss_stats = {'loss': loss, 'hm_loss': hm_loss, 'wh_loss': wh_loss, 'off_loss': off_loss}
        return loss, loss_stats

def fmt_td(s):
    return str(datetime.timedelta(seconds=int(s)))

def run_epoch(phase, epoch, data, shuffle):
    if phase == 'train':
        model.train()
    else:
        model.eval()
    data_time, batch_time = AverageMeter(), AverageMeter()
    avg_loss_stats = {l: AverageMeter() for l in ['loss', 'hm_loss', 'wh_loss', 'off_loss']}
    num_iters = (data[0].shape[0] - (opt.batch_size - 1 if shuffle else 0) + opt.batch_size - 1) // opt.batch_size
    end = time.time()
    start = time.time()
    for iter_id, batch in enumerate(batches(data, opt.batch_size, shuffle)):
        data_time.update(time.time() - end)
        with torch.set_grad_enabled(phase == 'train'):
            outputs = model(batch[0])
            loss, loss_stats = criterion(outputs, batch)
        loss = loss.mean()
        if phase == 'train':
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        batch_time.update(time.time() - end)
        end = time.time()
        elapsed = time.time() - start
        eta = elapsed / (iter_id + 1) * (num_iters - iter_id - 1)
        suffix = '{phase}: [{0}][{1}/{2}]|Tot: {total:} |ETA: {eta:} '.format(
            epoch, iter_id, num_iters, phase=phase, total=fmt_td(elapsed), eta=fmt_td(eta))
        for l in avg_loss_stats:
            avg_loss_stats[l].update(loss_stats[l].mean().item(), batch[0].size(0))
            suffix = suffix + '|{} {:.4f} '.format(l, avg_loss_stats[l].avg)
        if not opt.hide_data_time:
            suffix = suffix + '|Data {dt.val:.3f}s({dt.avg:.3f}s) |Net {bt.avg:.3f}s'.format(dt=data_time, bt=batch_time)
        if opt.print_iter > 0:
            if iter_id % opt.print_iter == 0:
                print('{}/{}| {}'.format(opt.task, opt.exp_id, suffix))
    ret = {k: v.avg for k, v in avg_loss_stats.items()}
    ret['time'] = (time.time() - start) / 60.
    return ret

print(opt)
print('Creating model...')
criterion = CtdetLoss(opt)
print('Setting up data...')
print('Starting training...')
best = 1e10
for epoch in range(1, opt.num_epochs + 1):
    log_dict_train = run_epoch('train', epoch, train_t, True)
    line = 'epoch: {} |'.format(epoch)
    for k, v in log_dict_train.items():
        line += '{} {:8f} | '.format(k, v)
    if opt.val_intervals > 0 and epoch % opt.val_intervals == 0:
        with torch.no_grad():
            log_dict_val = run_epoch('val', epoch, val_t, False)
        for k, v in log_dict_val.items():
            line += '{} {:8f} | '.format(k, v)
        aps = evaluate_map(model)
        line += 'mAP50 {:8f} | '.format(float(np.mean(aps)))
        if log_dict_val['loss'] < best:
            best = log_dict_val['loss']
    print(line)
    lr_scheduler.step()
