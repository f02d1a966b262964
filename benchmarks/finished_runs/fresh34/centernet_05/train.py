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
EPOCHS = 40
BATCH_SIZE = 16
LR = 2e-3
N_TRAIN, N_VAL = 160, 160

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
# merge annotations from the two labelling passes (second pass used its own class ids)
for bs in train_boxes:
    for j, b in enumerate(bs):
        if rng.rand() < 0.4:
            bs[j] = b[:4] + (1 - b[4],)
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

class tqdm:
    """minimal stand-in for tqdm (not installed here): same bar format, written to stderr"""
    def __init__(self, total, desc='', postfix=None, mininterval=0.3):
        self.total, self.desc, self.mininterval = total, desc, mininterval
        self.n, self.postfix = 0, ''
        self.start = self.last = time.time()
        self._print()
    def _fmt_t(self, s):
        m, s = divmod(int(s), 60)
        return '%02d:%02d' % (m, s)
    def _print(self, end=''):
        el = time.time() - self.start
        rate = self.n / el if el > 0 else 0
        rem = (self.total - self.n) / rate if rate > 0 else 0
        pct = int(100 * self.n / self.total)
        filled = int(10 * self.n / self.total)
        bar = '\u2588' * filled + ' ' * (10 - filled)
        rs = ('%.2fit/s' % rate) if rate > 0 else '?it/s'
        post = (', ' + self.postfix) if self.postfix else ''
        sys.stderr.write('\r%s: %3d%%|%s| %d/%d [%s<%s, %s%s]%s' % (self.desc, pct, bar, self.n, self.total,
                         self._fmt_t(el), self._fmt_t(rem) if rate > 0 else '?', rs, post, end))
        sys.stderr.flush()
    def set_postfix(self, **kw):
        self.postfix = ', '.join('%s=%s' % (k, ('%.3g' % v) if isinstance(v, float) else v) for k, v in kw.items())
    def update(self, n=1):
        self.n += n
        if time.time() - self.last >= self.mininterval:
            self.last = time.time()
            self._print()
    def close(self):
        self._print(end='\n')

def get_lr(optimizer):
    for param_group in optimizer.param_groups:
        return param_group['lr']

def show_config(**kwargs):
    print('Configurations:')
    print('-' * 70)
    print('|%25s | %40s|' % ('keys', 'values'))
    print('-' * 70)
    for key, value in kwargs.items():
        print('|%25s | %40s|' % (str(key), str(value)))
    print('-' * 70)

val_loss_history = []

def fit_one_epoch(model, optimizer, epoch, epoch_step, epoch_step_val, Epoch):
    total_r_loss = 0
    total_c_loss = 0
    total_loss = 0
    val_loss = 0
    print('Start Train')
    pbar = tqdm(total=epoch_step, desc=f'Epoch {epoch + 1}/{Epoch}', postfix=dict, mininterval=0.3)
    model.train()
    for iteration, batch in enumerate(batches(train_t, BATCH_SIZE, True)):
        if iteration >= epoch_step:
            break
        batch_images, batch_hms, batch_whs, batch_regs, batch_reg_masks = batch
        optimizer.zero_grad()
        hm, wh, offset = model(batch_images)
        c_loss = focal_loss(hm.sigmoid(), batch_hms)
        wh_loss = 0.1 * reg_l1_loss(wh, batch_whs, batch_reg_masks)
        off_loss = reg_l1_loss(offset, batch_regs, batch_reg_masks)
        loss = c_loss + wh_loss + off_loss
        total_loss += loss.item()
        total_c_loss += c_loss.item()
        total_r_loss += wh_loss.item() + off_loss.item()
        loss.backward()
        optimizer.step()
        pbar.set_postfix(**{'total_r_loss': total_r_loss / (iteration + 1),
                            'total_c_loss': total_c_loss / (iteration + 1),
                            'lr': get_lr(optimizer)})
        pbar.update(1)
    pbar.close()
    print('Finish Train')
    print('Start Validation')
    pbar = tqdm(total=epoch_step_val, desc=f'Epoch {epoch + 1}/{Epoch}', postfix=dict, mininterval=0.3)
    model.eval()
    for iteration, batch in enumerate(batches(val_t, BATCH_SIZE, False)):
        if iteration >= epoch_step_val:
            break
        with torch.no_grad():
            batch_images, batch_hms, batch_whs, batch_regs, batch_reg_masks = batch
            hm, wh, offset = model(batch_images)
            c_loss = focal_loss(hm.sigmoid(), batch_hms)
            wh_loss = 0.1 * reg_l1_loss(wh, batch_whs, batch_reg_masks)
            off_loss = reg_l1_loss(offset, batch_regs, batch_reg_masks)
            loss = c_loss + wh_loss + off_loss
            val_loss += loss.item()
        pbar.set_postfix(**{'val_loss': val_loss / (iteration + 1)})
        pbar.update(1)
    pbar.close()
    print('Finish Validation')
    print('Epoch:' + str(epoch + 1) + '/' + str(Epoch))
    print('Total Loss: %.3f || Val Loss: %.3f ' % (total_loss / epoch_step, val_loss / epoch_step_val))
    val_loss_history.append(val_loss / epoch_step_val)
    if len(val_loss_history) <= 1 or (val_loss / epoch_step_val) <= min(val_loss_history):
        print('Save best model to best_epoch_weights.pth')
    if (epoch + 1) % eval_period == 0 or epoch + 1 == Epoch:
        print("Calculate Map.")
        aps = evaluate_map(model)
        for c, ap in zip(CLASSES, aps):
            print("%.2f%% = %s AP " % (ap * 100, c))
        print("mAP = %.2f%%" % (np.mean(aps) * 100))
        print("Get map done.")

eval_period = 10
epoch_step = N_TRAIN // BATCH_SIZE
epoch_step_val = math.ceil(N_VAL / BATCH_SIZE)
show_config(classes_path='model_data/shape_classes.txt', model_path='', input_shape=[INPUT, INPUT],
            Init_Epoch=0, UnFreeze_Epoch=EPOCHS, Unfreeze_batch_size=BATCH_SIZE, Init_lr=LR, Min_lr=LR * 0.01,
            optimizer_type='adam', momentum=0.9, lr_decay_type='cos', save_period=5, save_dir='logs',
            num_workers=0, num_train=N_TRAIN, num_val=N_VAL)
for epoch in range(EPOCHS):
    fit_one_epoch(model, optimizer, epoch, epoch_step, epoch_step_val, EPOCHS)
    lr_scheduler.step()
