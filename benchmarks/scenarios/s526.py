# AntonMu/TrainYourOwnYOLO in miniature, ported from Keras to PyTorch: 2_Training/Train_YOLO.py's two training stages
# on top of pre-trained weights. Stage 1 ("Train with frozen layers first, to get a stable loss"): everything but the
# output layers frozen, Adam(lr=1e-3), batch_size = 32; stage 2 ("Unfreeze and continue training, to fine-tune"):
# all layers trainable, recompiled with Adam(lr=1e-4), batch_size = 4, ReduceLROnPlateau(monitor='val_loss',
# factor=0.1, patience=3) and EarlyStopping(patience=10); the yolo_loss (xy binary cross-entropy and wh squared error
# weighted by 2 - w*h, objectness and class binary cross-entropy, summed over the grid and divided by the batch size),
# val_split 0.1, Keras-style "Epoch e/E ... - loss: ... - val_loss: ..." lines. Scaled down: a small conv backbone
# "pre-trained" in the script on a shape-classification proxy task (standing in for the converted Darknet weights
# that Train_YOLO.py loads), a 4 x 4 grid with one anchor and a single 1 x 1 output convolution instead of three scales, 900 synthetic 32 x 32 pictures
# with one disc, square or cross each (3 classes), 8 + 8 epochs instead of 51 + 51. metrics.csv has loss and
# val_loss per epoch (the TensorBoard curve of the report), the stage, the learning rate and a held-out detection
# rate (best-scoring cell on the object, right class, IoU > 0.5).
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
S, G, C = 32, 4, 3
yy, xx = np.mgrid[0:S, 0:S].astype(np.float32)
def picture(r):
    img = r.uniform(0, 0.3, (3, S, S)).astype(np.float32) * r.uniform(0.5, 1.0)
    c = r.randint(C); w = r.uniform(7, 16); h = w * r.uniform(0.8, 1.25)
    cx, cy = r.uniform(w / 2, S - w / 2), r.uniform(h / 2, S - h / 2)
    dx, dy = (xx - cx) / (w / 2), (yy - cy) / (h / 2)
    if c == 0: m = dx ** 2 + dy ** 2 <= 1
    elif c == 1: m = (np.abs(dx) <= 1) & (np.abs(dy) <= 1)
    else: m = ((np.abs(dx) <= 1) & (np.abs(dy) <= 0.3)) | ((np.abs(dx) <= 0.3) & (np.abs(dy) <= 1))
    col = r.uniform(0.5, 1.0, 3)
    for k in range(3): img[k][m] = col[k]
    img += r.normal(0, 0.1, img.shape).astype(np.float32)
    return img, c, np.array([cx / S, cy / S, w / S, h / S], np.float32)
def dataset(n, seed):
    r = np.random.RandomState(seed); d = [picture(r) for _ in range(n)]
    return torch.tensor(np.stack([a[0] for a in d])), torch.tensor([a[1] for a in d]), torch.tensor(np.stack([a[2] for a in d]))

class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        chans = [3, 16, 32, 48]
        self.convs = nn.ModuleList([nn.Conv2d(chans[i], chans[i + 1], 3, padding=1) for i in range(3)])
        self.bns = nn.ModuleList([nn.BatchNorm2d(chans[i + 1]) for i in range(3)])
    def forward(self, x):
        for conv, bn in zip(self.convs, self.bns):
            x = F.max_pool2d(F.leaky_relu(bn(conv(x)), 0.1), 2)
        return x                                   # 48 x 4 x 4
class YOLO(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = Backbone()
        self.head = nn.Conv2d(48, 5 + C, 1)            # the 1 x 1 output convolution (y1 of yolo_body)
    def forward(self, x):
        return self.head(self.body(x)).permute(0, 2, 3, 1)   # B x G x G x (5 + C)

def yolo_loss(out, cls, box):
    B = out.shape[0]
    gi = (box[:, 0] * G).long().clamp(max=G - 1); gj = (box[:, 1] * G).long().clamp(max=G - 1)
    obj = torch.zeros(B, G, G); obj[torch.arange(B), gj, gi] = 1
    p = out[torch.arange(B), gj, gi]
    txy = torch.stack([box[:, 0] * G - gi, box[:, 1] * G - gj], 1)
    scale = 2 - box[:, 2] * box[:, 3]
    xy = (scale.unsqueeze(1) * F.binary_cross_entropy_with_logits(p[:, :2], txy, reduction='none')).sum()
    wh = (scale.unsqueeze(1) * 0.5 * (p[:, 2:4] - torch.log(box[:, 2:4] * G)) ** 2).sum()
    conf = F.binary_cross_entropy_with_logits(out[..., 4], obj, reduction='sum')
    cl = F.binary_cross_entropy_with_logits(p[:, 5:], F.one_hot(cls, C).float(), reduction='sum')
    return (xy + wh + conf + cl) / B

@torch.no_grad()
def evaluate(model, x, cls, box):
    model.eval(); out = model(x); loss = yolo_loss(out, cls, box).item()
    B = x.shape[0]; flat = out[..., 4].flatten(1).argmax(1); gj, gi = flat // G, flat % G
    p = out[torch.arange(B), gj, gi]
    cx = (gi + torch.sigmoid(p[:, 0])) / G; cy = (gj + torch.sigmoid(p[:, 1])) / G
    w = torch.exp(p[:, 2]) / G; h = torch.exp(p[:, 3]) / G
    ix = (torch.min(cx + w / 2, box[:, 0] + box[:, 2] / 2) - torch.max(cx - w / 2, box[:, 0] - box[:, 2] / 2)).clamp(min=0)
    iy = (torch.min(cy + h / 2, box[:, 1] + box[:, 3] / 2) - torch.max(cy - h / 2, box[:, 1] - box[:, 3] / 2)).clamp(min=0)
    iou = ix * iy / (w * h + box[:, 2] * box[:, 3] - ix * iy)
    hit = ((iou > 0.5) & (p[:, 5:].argmax(1) == cls)).float().mean().item()
    model.train(); return loss, hit

model = YOLO()
# "pre-trained weights": the backbone is first trained on a proxy classification task (not logged)
px, pc, _ = dataset(1500, 99); probe_head = nn.Linear(48, C)
popt = torch.optim.Adam(list(model.body.parameters()) + list(probe_head.parameters()), lr=2e-3)
for it in range(150):
    b = torch.randint(0, 1500, (32,))
    l = F.cross_entropy(probe_head(model.body(px[b]).mean((2, 3))), pc[b]); popt.zero_grad(); l.backward(); popt.step()
print('Create YOLOv3 model with 1 anchors and %d classes.' % C)
print('Load weights model_data/yolo_weights.h5.')

x, cls, box = dataset(900, 1)
num_val = int(len(x) * 0.1); num_train = len(x) - num_val
xt, ct, bt = x[:num_train], cls[:num_train], box[:num_train]; xv, cv, bv = x[num_train:], cls[num_train:], box[num_train:]
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'stage', 'lr', 'loss', 'val_loss', 'val_detection_rate'])

def fit(optimizer, batch_size, initial_epoch, epochs, reduce_lr=False, stage=1):
    best, wait, best_es, wait_es = float('inf'), 0, float('inf'), 0
    for epoch in range(initial_epoch, epochs):
        perm = torch.randperm(num_train); tot, n = 0.0, 0
        for s in range(0, num_train - batch_size + 1, batch_size):
            b = perm[s:s + batch_size]
            loss = yolo_loss(model(xt[b]), ct[b], bt[b])
            optimizer.zero_grad(); loss.backward(); optimizer.step(); tot += loss.item(); n += 1
        vl, hit = evaluate(model, xv, cv, bv); lr = optimizer.param_groups[0]['lr']
        print('Epoch %d/%d' % (epoch + 1, epochs))
        print('%d/%d [==============================] - loss: %.4f - val_loss: %.4f' % (n, n, tot / n, vl))
        wr.writerow([epoch + 1, stage, lr, round(tot / n, 4), round(vl, 4), round(hit, 4)]); f.flush()
        if reduce_lr:
            if vl < best - 1e-4: best, wait = vl, 0
            else:
                wait += 1
                if wait >= 3:
                    for g in optimizer.param_groups: g['lr'] *= 0.1
                    print('Epoch %05d: ReduceLROnPlateau reducing learning rate to %s.' % (epoch + 1, optimizer.param_groups[0]['lr'])); wait = 0
            if vl < best_es: best_es, wait_es = vl, 0
            else:
                wait_es += 1
                if wait_es >= 10: print('Epoch %05d: early stopping' % (epoch + 1)); return

epoch1, epoch2 = 8, 8
# Train with frozen layers first, to get a stable loss.
for p in model.body.parameters(): p.requires_grad = False
model.body.eval()                                   # frozen Keras BatchNormalization layers use their moving statistics
print('Freeze the first %d layers of total %d layers.' % (len(list(model.body.parameters())), len(list(model.parameters()))))
print('Train on %d samples, val on %d samples, with batch size %d.' % (num_train, num_val, 32))
fit(torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3), 32, 0, epoch1, stage=1)
# Unfreeze and continue training, to fine-tune.
for p in model.parameters(): p.requires_grad = True
model.body.train()
print('Unfreeze all layers.')
print('Train on %d samples, val on %d samples, with batch size %d.' % (num_train, num_val, 4))
fit(torch.optim.Adam(model.parameters(), lr=1e-4), 4, epoch1, epoch1 + epoch2, reduce_lr=True, stage=2)
f.close()
