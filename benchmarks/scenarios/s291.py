# Darknet/YOLO-style single-object detector in miniature: a small CNN regresses one box (cx, cy, w, h) and an
# objectness score on 32x32 synthetic images containing one bright rectangle on a cluttered background
# (random blobs). Batch 4 (memory-limited setting), Adam 1e-3, 1200 iterations, darknet-like log lines
# "iteration: loss, avg loss, rate" every 20 iterations and a held-out mAP@0.5-style check every 200.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(291)
yy, xx = torch.meshgrid(torch.arange(32.), torch.arange(32.), indexing='ij')


def make(n):
    imgs, boxes = [], []
    for _ in range(n):
        w, h = 6 + 12 * torch.rand(2, generator=g)
        cx = w / 2 + (32 - w) * torch.rand(1, generator=g).item(); cy = h / 2 + (32 - h) * torch.rand(1, generator=g).item()
        img = 0.3 * torch.rand(32, 32, generator=g)
        for _ in range(3):
            bx, by = 32 * torch.rand(2, generator=g)
            img += 0.4 * torch.exp(-((xx - bx) ** 2 + (yy - by) ** 2) / 8)
        img += 0.8 * (((xx - cx).abs() < w / 2) & ((yy - cy).abs() < h / 2)).float()
        imgs.append(img[None]); boxes.append(torch.tensor([cx, cy, w, h]) / 32)
    return torch.stack(imgs), torch.stack(boxes)


def iou(a, b):
    ax1, ay1, ax2, ay2 = a[:, 0] - a[:, 2] / 2, a[:, 1] - a[:, 3] / 2, a[:, 0] + a[:, 2] / 2, a[:, 1] + a[:, 3] / 2
    bx1, by1, bx2, by2 = b[:, 0] - b[:, 2] / 2, b[:, 1] - b[:, 3] / 2, b[:, 0] + b[:, 2] / 2, b[:, 1] + b[:, 3] / 2
    iw = (torch.min(ax2, bx2) - torch.max(ax1, bx1)).clamp(min=0); ih = (torch.min(ay2, by2) - torch.max(ay1, by1)).clamp(min=0)
    inter = iw * ih
    return inter / (a[:, 2] * a[:, 3] + b[:, 2] * b[:, 3] - inter + 1e-9)


xtr, btr = make(1200); xva, bva = make(300)
net = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.LeakyReLU(0.1), nn.MaxPool2d(2),
                    nn.Conv2d(16, 32, 3, padding=1), nn.LeakyReLU(0.1), nn.MaxPool2d(2),
                    nn.Conv2d(32, 64, 3, padding=1), nn.LeakyReLU(0.1), nn.MaxPool2d(2),
                    nn.Flatten(), nn.Linear(64 * 16, 128), nn.LeakyReLU(0.1), nn.Linear(128, 4))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
avg = -1.0
for it in range(1, 1201):
    idx = torch.randint(0, 1200, (4,), generator=g)
    pred = torch.sigmoid(net(xtr[idx]))
    loss = 20 * F.mse_loss(pred, btr[idx]) + (1 - iou(pred, btr[idx])).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    avg = loss.item() if avg < 0 else 0.9 * avg + 0.1 * loss.item()
    if it % 20 == 0:
        print(' {}: {:.6f}, {:.6f} avg loss, 0.001000 rate, {} images'.format(it, loss.item(), avg, it * 4))
    if it % 200 == 0:
        with torch.no_grad():
            p = torch.sigmoid(net(xva)); v = iou(p, bva)
        print(' calculation mAP (mean average precision)... detections_count = 300, unique_truth_count = 300')
        print(' mean IoU = {:.4f}, mAP@0.50 = {:.2f} %, val loss = {:.4f}'.format(
            v.mean().item(), 100 * (v > 0.5).float().mean().item(), (20 * F.mse_loss(p, bva) + (1 - v).mean()).item()))
