# qqwweee/keras-yolo3 train.py on a custom two-class data set in miniature, ported to PyTorch: a tiny
# YOLO-style detector (5 conv layers, stride 8, 3 anchors per cell on a 4 x 4 grid over 32 x 32 synthetic
# images with one or two boxes each), yolo_loss as in the repository (objectness and class binary cross
# entropy, xy binary cross entropy, 0.5 * squared wh error scaled by (2 - w*h), summed and divided by the
# batch size), model compiled as in train.py with loss = lambda y_true, y_pred: y_pred, so the printed
# 'acc' is meaningless and stays 0.0000e+00; Adam 1e-3, batch 16, 270 steps per epoch, 6 epochs,
# Keras progress-bar lines "k/270 [====>...] - ETA: ...s - loss: ... - acc: 0.0000e+00" every 15 steps
# (the loss shown is the running mean since the start of the epoch, as Keras prints it) and
# "270/270 [...] - loss: ... - val_loss: ..." at each epoch end.
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(389); torch.manual_seed(389); torch.set_num_threads(1)
S, G, A, NC = 32, 4, 3, 2
anchors = torch.tensor([[0.15, 0.15], [0.3, 0.2], [0.2, 0.35]])
def make(n):
    X = np.random.rand(n, 3, S, S).astype(np.float32) * 0.6; Y = np.zeros((n, G, G, A, 5 + NC), np.float32)
    for i in range(n):
        for _ in range(np.random.randint(1, 3)):
            c = np.random.randint(NC); w, h = np.random.uniform(0.12, 0.4, 2); cx, cy = np.random.uniform(w / 2, 1 - w / 2), np.random.uniform(h / 2, 1 - h / 2)
            x0, x1, y0, y1 = int((cx - w / 2) * S), int((cx + w / 2) * S), int((cy - h / 2) * S), int((cy + h / 2) * S)
            X[i, c, y0:y1, x0:x1] += 0.7; X[i, 2, y0:y1, x0:x1] += 0.3 * c
            a = int(((anchors - torch.tensor([w, h])) ** 2).sum(1).argmin()); gx, gy = min(int(cx * G), G - 1), min(int(cy * G), G - 1)
            Y[i, gy, gx, a, :5] = [cx * G - gx, cy * G - gy, w, h, 1]; Y[i, gy, gx, a, 5 + c] = 1
    return torch.tensor(X), torch.tensor(Y)
Xtr, Ytr = make(4320); Xva, Yva = make(480)
print('Train on 4320 samples, val on 480 samples, with batch size 16.')
def conv(ci, co, s): return nn.Sequential(nn.Conv2d(ci, co, 3, s, 1, bias=False), nn.BatchNorm2d(co), nn.LeakyReLU(0.1))
model = nn.Sequential(conv(3, 16, 1), conv(16, 32, 2), conv(32, 32, 2), conv(32, 64, 2), conv(64, 64, 1), nn.Conv2d(64, A * (5 + NC), 1))
def yolo_loss(out, y):
    out = out.view(-1, A, 5 + NC, G, G).permute(0, 3, 4, 1, 2); m = len(out)
    obj = y[..., 4:5]; scale = 2 - y[..., 2:3] * y[..., 3:4]
    xy = obj * scale * F.binary_cross_entropy_with_logits(out[..., :2], y[..., :2], reduction='none')
    wh_t = torch.log(y[..., 2:4] / anchors + 1e-9) * obj
    wh = obj * scale * 0.5 * (wh_t - out[..., 2:4]) ** 2
    conf = F.binary_cross_entropy_with_logits(out[..., 4:5], obj, reduction='none')
    cls = obj * F.binary_cross_entropy_with_logits(out[..., 5:], y[..., 5:], reduction='none')
    return (xy.sum() + wh.sum() + conf.sum() + cls.sum()) / m
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'step', 'batch_loss', 'running_loss', 'val_loss'])
NB = 270; gstep = 0
for epoch in range(1, 7):
    print('Epoch %d/6' % epoch); model.train(); perm = torch.randperm(len(Xtr)); run = 0.0; t0 = time.time()
    for k in range(1, NB + 1):
        idx = perm[(k - 1) * 16:k * 16]
        loss = yolo_loss(model(Xtr[idx]), Ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step(); gstep += 1; run += loss.item()
        if k % 15 == 0 and k < NB:
            bar = '=' * int(29 * k / NB) + '>' + '.' * (29 - int(29 * k / NB))
            print('%3d/%d [%s] - ETA: %ds - loss: %.4f - acc: 0.0000e+00' % (k, NB, bar, int((time.time() - t0) / k * (NB - k)), run / k))
            wr.writerow([epoch, gstep, loss.item(), run / k, ''])
    model.eval()
    with torch.no_grad():
        vl = np.mean([yolo_loss(model(Xva[i:i + 80]), Yva[i:i + 80]).item() for i in range(0, len(Xva), 80)])
    print('%d/%d [==============================] - %ds %dms/step - loss: %.4f - acc: 0.0000e+00 - val_loss: %.4f - val_acc: 0.0000e+00'
          % (NB, NB, int(time.time() - t0), int(1000 * (time.time() - t0) / NB), run / NB, vl))
    wr.writerow([epoch, gstep, '', run / NB, vl])
