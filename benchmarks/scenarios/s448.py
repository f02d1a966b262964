# google/automl EfficientDet fine-tuning with keras train (train_and_eval, verbose 2) in miniature:
# a small detector (a "pretrained" convolutional backbone with large initial weights standing in for
# EfficientNet-B0, a class head and a box head on an 8 x 8 feature grid, one anchor per cell) trained on
# 1280 training and 320 validation synthetic 64 x 64 images with one to three boxes of 3 classes,
# focal loss (alpha 0.25, gamma 1.5) summed and normalised by the number of positives, Huber box loss
# (delta 0.1) x 50, reg_l2_loss = weight_decay 4e-5 x sum of 0.5 ||w||^2 over conv/dense kernels,
# SGD momentum 0.9 with a linear warm-up to lr 0.008 over the first epoch then cosine decay, global
# gradient clipping at norm 10 (the logged gradient_norm is the clipped one), batch 16, 5 epochs of 50
# steps, one Keras-style line per epoch.
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(21); torch.manual_seed(21); torch.set_num_threads(1)
G, C = 8, 3

def make_set(n):
    imgs = np.random.rand(n, 3, 64, 64).astype(np.float32) * 0.3
    cls_t = np.zeros((n, C, G, G), np.float32); box_t = np.zeros((n, 4, G, G), np.float32); pos = np.zeros((n, G, G), np.float32)
    colours = np.array([[1, 0.2, 0.2], [0.2, 1, 0.2], [0.2, 0.2, 1]], np.float32)
    for i in range(n):
        for _ in range(np.random.randint(1, 4)):
            c = np.random.randint(C); w, h = np.random.randint(10, 24, 2); x0, y0 = np.random.randint(0, 64 - w), np.random.randint(0, 64 - h)
            imgs[i, :, y0:y0 + h, x0:x0 + w] = colours[c][:, None, None] * np.random.uniform(0.7, 1.0)
            cx, cy = x0 + w / 2, y0 + h / 2; gx, gy = int(cx // 8), int(cy // 8)
            cls_t[i, :, gy, gx] = 0; cls_t[i, c, gy, gx] = 1; pos[i, gy, gx] = 1
            box_t[i, :, gy, gx] = [(cx - (gx * 8 + 4)) / 8, (cy - (gy * 8 + 4)) / 8, math.log(w / 16), math.log(h / 16)]
    return torch.tensor(imgs), torch.tensor(cls_t), torch.tensor(box_t), torch.tensor(pos)

train = make_set(1280); val = make_set(320)

class Det(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.SiLU(), nn.Conv2d(32, 64, 3, 2, 1), nn.SiLU(),
                                      nn.Conv2d(64, 96, 3, 2, 1), nn.SiLU(), nn.Conv2d(96, 96, 3, 1, 1), nn.SiLU())
        self.class_net = nn.Sequential(nn.Conv2d(96, 64, 3, 1, 1), nn.SiLU(), nn.Conv2d(64, C, 3, 1, 1))
        self.box_net = nn.Sequential(nn.Conv2d(96, 64, 3, 1, 1), nn.SiLU(), nn.Conv2d(64, 4, 3, 1, 1))
        with torch.no_grad():   # "pretrained" backbone: larger weights than a fresh init
            for m in self.backbone:
                if isinstance(m, nn.Conv2d): m.weight.mul_(2.5)
            self.class_net[-1].bias.fill_(-math.log((1 - 0.01) / 0.01))
    def forward(self, x):
        f = self.backbone(x); return self.class_net(f), self.box_net(f)

def focal_loss(logits, t, alpha=0.25, gamma=1.5):
    p = torch.sigmoid(logits); ce = F.binary_cross_entropy_with_logits(logits, t, reduction='none')
    p_t = p * t + (1 - p) * (1 - t); a_t = alpha * t + (1 - alpha) * (1 - t)
    return (a_t * (1 - p_t) ** gamma * ce).sum()

def losses(model, x, ct, bt, pos):
    cl, bx = model(x); npos = pos.sum().clamp(min=1)
    cls_loss = focal_loss(cl, ct) / npos
    box_loss = (F.huber_loss(bx, bt, delta=0.1, reduction='none').sum(1) * pos).sum() / (npos * 4) * 50
    reg = 4e-5 * sum(0.5 * (p ** 2).sum() for n_, p in model.named_parameters() if p.dim() > 1)
    return cls_loss, box_loss, reg

model = Det(); opt = torch.optim.SGD(model.parameters(), lr=0.008, momentum=0.9)
steps, epochs = 50, 5; total = steps * epochs
def lr_at(s):
    return 0.008 * s / steps if s < steps else 0.008 * 0.5 * (1 + math.cos(math.pi * (s - steps) / (total - steps)))
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'det_loss', 'cls_loss', 'box_loss', 'reg_l2_loss', 'loss', 'learning_rate', 'gradient_norm', 'val_det_loss', 'val_cls_loss', 'val_box_loss', 'val_reg_l2_loss', 'val_loss'])
s = 0
for epoch in range(epochs):
    print(f'Epoch {epoch + 1}/{epochs}'); t0 = time.time(); agg = np.zeros(5)
    for it in range(steps):
        idx = torch.randint(0, 1280, (16,))
        for g in opt.param_groups: g['lr'] = lr_at(s)
        cls_loss, box_loss, reg = losses(model, *(t[idx] for t in train))
        loss = cls_loss + box_loss + reg
        opt.zero_grad(); loss.backward()
        gnorm = min(torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0).item(), 10.0)
        opt.step(); s += 1
        agg += [cls_loss.item() + box_loss.item(), cls_loss.item(), box_loss.item(), reg.item(), loss.item()]
    agg /= steps
    with torch.no_grad():
        vc, vb, vr = losses(model, *val)
    print(f'{steps}/{steps} - {time.time() - t0:.0f}s - det_loss: {agg[0]:.4f} - cls_loss: {agg[1]:.4f} - box_loss: {agg[2]:.4f} - '
          f'reg_l2_loss: {agg[3]:.4f} - loss: {agg[4]:.4f} - learning_rate: {lr_at(s - 1):.4e} - gradient_norm: {gnorm:.4f} - '
          f'val_det_loss: {(vc + vb).item():.4f} - val_cls_loss: {vc.item():.4f} - val_box_loss: {vb.item():.4f} - '
          f'val_reg_l2_loss: {vr.item():.4f} - val_loss: {(vc + vb + vr).item():.4f}')
    wr.writerow([epoch + 1, *agg[:3], agg[3], agg[4], lr_at(s - 1), gnorm, (vc + vb).item(), vc.item(), vb.item(), vr.item(), (vc + vb + vr).item()]); f.flush()
