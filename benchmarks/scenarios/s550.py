# ethanhe42/KL-Loss issue "KL-loss seems could be negative?" in miniature, ported from Caffe2 / Detectron to PyTorch:
# the Fast R-CNN box head of "Bounding Box Regression with Uncertainty for Accurate Object Detection" as implemented in
# detectron/modeling/fast_rcnn_heads.py with cfg.PRED_STD and cfg.PRED_STD_LOG: besides cls_score and bbox_pred
# (gauss_fill 0.001) the head predicts bbox_pred_std = alpha = log(sigma^2) (gauss_fill 0.0001, bias 0), copied to
# bbox_pred_std_abs without any ReLU or sigmoid, and the losses are loss_cls (softmax cross entropy), loss_bbox
# (SmoothL1 of bbox_pred weighted by e^{-alpha}, gradient to the box only), bbox_pred_std_abs_mulw_loss (e^{-alpha}
# times the stopped SmoothL1 term, mean over RoIs, summed over coordinates) and bbox_pred_std_abs_logw_loss
# (0.5 * alpha on the foreground coordinates, mean over RoIs, summed), so the total can go below zero once the network
# predicts sigma^2 < 1 for well-localised boxes. Training as in Detectron's tools/train_net.py: SGD momentum 0.9,
# weight decay 1e-4, linear warm-up (factor 1/3), step decay, RoIs sampled per image with FG_FRACTION 0.25 - 0.5 and
# bbox regression weights (10, 10, 5, 5), and the "json_stats: {...}" line every 20 iterations with the median of each
# loss over the window. Scaled down: a 3-layer conv backbone (stride 4) and RoIAlign 7 x 7 (bilinear grid_sample) feed
# the 2-MLP head (fc6, fc7, 128 wide) on 64 x 64 synthetic pictures with one object of 3 classes (filled square,
# ring, striped box) on a noisy background; 16 RoIs per image (8 jittered around the object with IoU >= 0.5, 8
# background boxes), 8 images per batch, class-agnostic box regression, base_lr 0.01, 800 iterations with the step at
# 600; every 200 iterations the mean IoU of the refined boxes and the classification accuracy on 200 held-out
# pictures. metrics.csv has the json_stats values every 20 iterations and the held-out metrics.
import csv, json, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)

IMG, NUM_CLASSES, ROIS_PER_IM, IMS_PER_BATCH = 64, 4, 16, 8
BASE_LR, MAX_ITER, STEPS, WARMUP_ITERS, WARMUP_FACTOR = 0.01, 800, (600,), 100, 1.0 / 3
BBOX_REG_WEIGHTS = (10.0, 10.0, 5.0, 5.0)


def draw(r):
    img = r.normal(0.0, 0.25, (3, IMG, IMG)).astype(np.float32)
    w, h = r.randint(14, 40), r.randint(14, 40)
    x0, y0 = r.randint(0, IMG - w), r.randint(0, IMG - h)
    cls = r.randint(1, NUM_CLASSES)
    col = r.uniform(0.6, 1.2, 3).astype(np.float32)[:, None, None]
    yy, xx = np.mgrid[0:h, 0:w]
    if cls == 1:
        m = np.ones((h, w), np.float32)
    elif cls == 2:
        m = ((yy < 3) | (yy >= h - 3) | (xx < 3) | (xx >= w - 3)).astype(np.float32)
    else:
        m = ((xx // 3) % 2 == 0).astype(np.float32)
    img[:, y0:y0 + h, x0:x0 + w] += col * m
    return img, np.array([x0, y0, x0 + w - 1, y0 + h - 1], np.float32), cls


def iou(a, b):
    ix1, iy1 = np.maximum(a[..., 0], b[..., 0]), np.maximum(a[..., 1], b[..., 1])
    ix2, iy2 = np.minimum(a[..., 2], b[..., 2]), np.minimum(a[..., 3], b[..., 3])
    inter = np.clip(ix2 - ix1 + 1, 0, None) * np.clip(iy2 - iy1 + 1, 0, None)
    area = lambda z: (z[..., 2] - z[..., 0] + 1) * (z[..., 3] - z[..., 1] + 1)
    return inter / (area(a) + area(b) - inter)


def sample_rois(r, gt, n_fg=8, n_bg=8):
    fg, bg = [], []
    w, h = gt[2] - gt[0] + 1, gt[3] - gt[1] + 1
    while len(fg) < n_fg:
        b = gt + np.array([r.normal(0, 0.12) * w, r.normal(0, 0.12) * h, r.normal(0, 0.12) * w, r.normal(0, 0.12) * h])
        b = np.clip(b, 0, IMG - 1)
        if b[2] - b[0] > 4 and b[3] - b[1] > 4 and iou(b, gt) >= 0.5:
            fg.append(b)
    while len(bg) < n_bg:
        x0, y0 = r.uniform(0, IMG - 10, 2); b = np.array([x0, y0, min(IMG - 1, x0 + r.uniform(8, 40)), min(IMG - 1, y0 + r.uniform(8, 40))])
        if iou(b, gt) < 0.5:
            bg.append(b)
    return np.stack(fg + bg).astype(np.float32)


def bbox_transform_inv(boxes, gt, weights=BBOX_REG_WEIGHTS):
    wx, wy, ww, wh = weights
    ew, eh = boxes[:, 2] - boxes[:, 0] + 1.0, boxes[:, 3] - boxes[:, 1] + 1.0
    ex, ey = boxes[:, 0] + 0.5 * ew, boxes[:, 1] + 0.5 * eh
    gw, gh = gt[:, 2] - gt[:, 0] + 1.0, gt[:, 3] - gt[:, 1] + 1.0
    gx, gy = gt[:, 0] + 0.5 * gw, gt[:, 1] + 0.5 * gh
    return np.stack([wx * (gx - ex) / ew, wy * (gy - ey) / eh, ww * np.log(gw / ew), wh * np.log(gh / eh)], 1)


def bbox_transform(boxes, deltas, weights=BBOX_REG_WEIGHTS):
    wx, wy, ww, wh = weights
    w, h = boxes[:, 2] - boxes[:, 0] + 1.0, boxes[:, 3] - boxes[:, 1] + 1.0
    cx, cy = boxes[:, 0] + 0.5 * w, boxes[:, 1] + 0.5 * h
    dx, dy = deltas[:, 0] / wx, deltas[:, 1] / wy
    dw, dh = np.minimum(deltas[:, 2] / ww, np.log(1000. / 16)), np.minimum(deltas[:, 3] / wh, np.log(1000. / 16))
    pcx, pcy, pw, ph = dx * w + cx, dy * h + cy, np.exp(dw) * w, np.exp(dh) * h
    return np.stack([pcx - 0.5 * pw, pcy - 0.5 * ph, pcx + 0.5 * pw - 1, pcy + 0.5 * ph - 1], 1)


def make_set(n, seed):
    r = np.random.RandomState(seed)
    ims, rois, labels, targets, gts = [], [], [], [], []
    for i in range(n):
        im, gt, cls = draw(r)
        rr = sample_rois(r, gt)
        lab = np.array([cls] * 8 + [0] * 8, np.int64)
        ims.append(im); rois.append(rr); labels.append(lab); gts.append(gt)
        targets.append(bbox_transform_inv(rr, np.repeat(gt[None], len(rr), 0)).astype(np.float32))
    return (torch.from_numpy(np.stack(ims)), torch.from_numpy(np.stack(rois)), torch.from_numpy(np.stack(labels)),
            torch.from_numpy(np.stack(targets)), np.stack(gts))


def roi_align(feat, rois, scale=0.25, res=7):
    """feat (B, C, h, w), rois (B, R, 4) in image coordinates -> (B*R, C, res, res) by bilinear sampling."""
    B, C, h, w = feat.shape; R = rois.shape[1]
    t = (torch.arange(res, dtype=torch.float32) + 0.5) / res
    x1, y1, x2, y2 = [rois[..., i:i + 1] * scale for i in range(4)]
    xs = x1 + (x2 - x1) * t; ys = y1 + (y2 - y1) * t                       # (B, R, res)
    gx = xs / (w - 1) * 2 - 1; gy = ys / (h - 1) * 2 - 1
    grid = torch.stack([gx[:, :, None, :].expand(B, R, res, res), gy[:, :, :, None].expand(B, R, res, res)], -1)
    out = F.grid_sample(feat, grid.view(B, R * res, res, 2), mode='bilinear', align_corners=True)
    return out.view(B, C, R, res, res).permute(0, 2, 1, 3, 4).reshape(B * R, C, res, res)


class FastRCNN(nn.Module):
    def __init__(self, dim=128):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU(inplace=True), nn.Conv2d(32, 48, 3, 2, 1),
                                  nn.ReLU(inplace=True), nn.Conv2d(48, 48, 3, 1, 1), nn.ReLU(inplace=True))
        self.fc6 = nn.Linear(48 * 7 * 7, dim); self.fc7 = nn.Linear(dim, dim)
        self.cls_score = nn.Linear(dim, NUM_CLASSES)
        self.bbox_pred = nn.Linear(dim, 2 * 4)          # CLS_AGNOSTIC_BBOX_REG: background + foreground slots
        self.bbox_pred_std = nn.Linear(dim, 2 * 4)
        for m, std in ((self.cls_score, 0.01), (self.bbox_pred, 0.001), (self.bbox_pred_std, 0.0001)):
            nn.init.normal_(m.weight, std=std); nn.init.constant_(m.bias, 0.0)

    def forward(self, ims, rois):
        x = roi_align(self.body(ims), rois).flatten(1)
        x = F.relu(self.fc7(F.relu(self.fc6(x))))
        return self.cls_score(x), self.bbox_pred(x), self.bbox_pred_std(x)


def fast_rcnn_losses(cls_score, bbox_pred, bbox_pred_std, labels, targets):
    n = labels.shape[0]
    loss_cls = F.cross_entropy(cls_score, labels)
    inside = torch.zeros(n, 8); inside[labels > 0, 4:] = 1.0; outside = inside
    bbox_targets = torch.zeros(n, 8); bbox_targets[:, 4:] = targets
    bbox_inw = (bbox_pred - bbox_targets) * inside
    l1abs = bbox_inw.abs()
    bbox_inws = torch.where(l1abs < 1, 0.5 * bbox_inw ** 2, l1abs - 0.5)       # smooth L1, beta 1
    alpha = bbox_pred_std                                                      # bbox_pred_std_abs (PRED_STD_LOG)
    nexp = torch.exp(-alpha)
    mulw = (nexp * bbox_inws.detach()).mean(0).sum()                             # bbox_pred_std_abs_mulw_loss
    logw = (0.5 * alpha * outside).mean(0).sum()                                 # bbox_pred_std_abs_logw_loss
    loss_bbox = (nexp.detach() * bbox_inws).sum() / n                            # SmoothL1Loss with e^{-alpha} weights
    acc = (cls_score.argmax(1) == labels).float().mean()
    return loss_cls, loss_bbox, mulw, logw, acc


def lr_at(it):
    lr = BASE_LR * (0.1 ** sum(it >= s for s in STEPS))
    if it < WARMUP_ITERS:
        a = it / WARMUP_ITERS
        lr *= WARMUP_FACTOR * (1 - a) + a
    return lr


train = make_set(1200, 1)
val = make_set(200, 2)
model = FastRCNN()
params = [{'params': [p for n_, p in model.named_parameters() if n_.endswith('weight')], 'weight_decay': 1e-4},
          {'params': [p for n_, p in model.named_parameters() if n_.endswith('bias')], 'weight_decay': 0.0}]
opt = torch.optim.SGD(params, lr=BASE_LR, momentum=0.9)


def evaluate():
    model.eval()
    with torch.no_grad():
        ims, rois, labels, targets, gts = val
        cls_score, bbox_pred, bbox_pred_std = model(ims, rois)
        fg = labels.view(-1) > 0
        boxes = bbox_transform(rois.view(-1, 4)[fg].numpy(), bbox_pred[fg][:, 4:].numpy())
        gt_rep = np.repeat(gts, ROIS_PER_IM, 0)[fg.numpy()]
        before = iou(rois.view(-1, 4)[fg].numpy(), gt_rep).mean(); after = iou(boxes, gt_rep).mean()
        acc = (cls_score.argmax(1) == labels.view(-1)).float().mean().item()
        sigma = torch.exp(0.5 * bbox_pred_std[fg][:, 4:]).mean().item()
    model.train()
    return before, after, acc, sigma


f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['iter', 'lr', 'loss', 'loss_cls', 'loss_bbox', 'mulw_loss', 'logw_loss', 'accuracy_cls',
             'val_iou_proposals', 'val_iou_refined', 'val_acc', 'val_mean_sigma'])
g = torch.Generator().manual_seed(0)
window = {k: [] for k in ('loss', 'loss_cls', 'loss_bbox', 'mulw', 'logw', 'acc')}
t0 = time.time()
for it in range(MAX_ITER):
    idx = torch.randint(0, 1200, (IMS_PER_BATCH,), generator=g)
    ims, rois, labels, targets = train[0][idx], train[1][idx], train[2][idx].view(-1), train[3][idx].view(-1, 4)
    lr = lr_at(it)
    for grp in opt.param_groups:
        grp['lr'] = lr
    cls_score, bbox_pred, bbox_pred_std = model(ims, rois)
    loss_cls, loss_bbox, mulw, logw, acc = fast_rcnn_losses(cls_score, bbox_pred, bbox_pred_std, labels, targets)
    loss = loss_cls + loss_bbox + mulw + logw
    opt.zero_grad(); loss.backward(); opt.step()
    for k, v in zip(window, (loss, loss_cls, loss_bbox, mulw, logw, acc)):
        window[k] = (window[k] + [v.item()])[-20:]
    if it % 20 == 0 or it == MAX_ITER - 1:
        med = {k: float(np.median(v)) for k, v in window.items()}
        stats = {'accuracy_cls': round(med['acc'], 6), 'bbox_pred_std_abs_logw_loss': round(med['logw'], 6),
                 'bbox_pred_std_abs_mulw_loss': round(med['mulw'], 6),
                 'eta': '0:00:%02d' % int((time.time() - t0) / (it + 1) * (MAX_ITER - it - 1) % 60), 'iter': it,
                 'loss': round(med['loss'], 6), 'loss_bbox': round(med['loss_bbox'], 6),
                 'loss_cls': round(med['loss_cls'], 6), 'lr': round(lr, 6), 'mb_qsize': 64, 'mem': 0,
                 'time': round((time.time() - t0) / (it + 1), 6)}
        print('json_stats: ' + json.dumps(stats, sort_keys=True), flush=True)
        wr.writerow([it, round(lr, 6), round(med['loss'], 5), round(med['loss_cls'], 5), round(med['loss_bbox'], 5),
                     round(med['mulw'], 5), round(med['logw'], 5), round(med['acc'], 4), '', '', '', ''])
    if (it + 1) % 200 == 0:
        before, after, vacc, sig = evaluate()
        print('Evaluate (200 held-out images): mean IoU of proposals %.4f -> refined boxes %.4f, cls accuracy %.4f, '
              'mean predicted sigma %.4f' % (before, after, vacc, sig), flush=True)
        wr.writerow([it, '', '', '', '', '', '', '', round(float(before), 4), round(float(after), 4), round(vacc, 4), round(sig, 4)])
    f.flush()
f.close()
