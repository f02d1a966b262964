# keras_frcnn style Faster R-CNN training in miniature: a small conv backbone on synthetic 32x32 scenes with one
# object (3 classes of textured rectangles on clutter), an RPN head (3 anchors per cell of the 8x8 feature map:
# objectness BCE + smooth-L1 box deltas) and a detector head on the best anchor's features (class softmax).
# Adam with the initial learning rate 1e-5, batch 16, 15 epochs x 30 iterations. Prints the keras_frcnn
# epoch summary (loss_rpn_cls, loss_rpn_regr, loss_class_cls, mean overlapping bboxes, total loss);
# writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(322)
sizes = torch.tensor([6.0, 10.0, 16.0])
tex = torch.randn(3, 3, 4, 4, generator=g)


def scenes(n):
    x = 0.5 * torch.randn(n, 3, 32, 32, generator=g)
    cls = torch.randint(0, 3, (n,), generator=g)
    wh = torch.randint(5, 17, (n, 2), generator=g).float()
    cxy = torch.rand(n, 2, generator=g) * (32 - wh) + wh / 2
    for i in range(n):
        x0, y0 = int(cxy[i, 0] - wh[i, 0] / 2), int(cxy[i, 1] - wh[i, 1] / 2)
        w, h = int(wh[i, 0]), int(wh[i, 1])
        patch = tex[cls[i]].repeat(1, h // 4 + 1, w // 4 + 1)[:, :h, :w]
        x[i, :, y0:y0 + h, x0:x0 + w] = patch + 1.0
    return x, cls, torch.cat([cxy, wh], 1)


gy, gx = torch.meshgrid(torch.arange(8) * 4 + 2.0, torch.arange(8) * 4 + 2.0, indexing='ij')
anchors = torch.stack([torch.stack([gx, gy, s.expand(8, 8), s.expand(8, 8)], -1) for s in sizes], 2).view(-1, 4)


def iou(a, b):
    a1, a2 = a[..., :2] - a[..., 2:] / 2, a[..., :2] + a[..., 2:] / 2
    b1, b2 = b[..., :2] - b[..., 2:] / 2, b[..., :2] + b[..., 2:] / 2
    inter = (torch.min(a2, b2) - torch.max(a1, b1)).clamp(min=0).prod(-1)
    return inter / (a[..., 2:].prod(-1) + b[..., 2:].prod(-1) - inter)


class FRCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(64, 64, 3, padding=1), nn.ReLU())
        self.rpn_cls = nn.Conv2d(64, 3, 1)
        self.rpn_reg = nn.Conv2d(64, 12, 1)
        self.cls_head = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 3))

    def forward(self, x):
        f = self.backbone(x)
        obj = self.rpn_cls(f).permute(0, 2, 3, 1).reshape(len(x), -1)
        reg = self.rpn_reg(f).permute(0, 2, 3, 1).reshape(len(x), -1, 4)
        return f, obj, reg


model = FRCNN()
opt = torch.optim.Adam(model.parameters(), lr=1e-5)
rows = []
for epoch in range(1, 16):
    acc = dict(rpn_cls=0.0, rpn_regr=0.0, class_cls=0.0, class_acc=0.0, overlap=0.0)
    for it in range(30):
        x, cls, box = scenes(16)
        f, obj, reg = model(x)
        ov = iou(anchors.unsqueeze(0), box.unsqueeze(1))              # B x A
        pos = ov >= 0.5
        best = ov.argmax(1); pos[torch.arange(16), best] = True
        neg = ov < 0.3
        lab = pos.float(); valid = pos | neg
        l_cls = F.binary_cross_entropy_with_logits(obj[valid], lab[valid])
        a = anchors[best]
        tgt = torch.cat([(box[:, :2] - a[:, :2]) / a[:, 2:], torch.log(box[:, 2:] / a[:, 2:])], 1)
        l_reg = F.smooth_l1_loss(reg[torch.arange(16), best], tgt)
        cell = best // 3
        feat = f.permute(0, 2, 3, 1).reshape(16, 64, 64)[torch.arange(16), cell]
        logits = model.cls_head(feat)
        l_cc = F.cross_entropy(logits, cls)
        loss = l_cls + l_reg + l_cc
        opt.zero_grad(); loss.backward(); opt.step()
        with torch.no_grad():
            top = obj.argmax(1)
            d = reg[torch.arange(16), top]; at = anchors[top]
            pred = torch.cat([at[:, :2] + d[:, :2] * at[:, 2:], at[:, 2:] * d[:, 2:].exp()], 1)
            acc['overlap'] += (iou(pred, box) > 0.5).float().mean().item()
        acc['rpn_cls'] += l_cls.item(); acc['rpn_regr'] += l_reg.item(); acc['class_cls'] += l_cc.item()
        acc['class_acc'] += (logits.argmax(1) == cls).float().mean().item()
    r = {k: v / 30 for k, v in acc.items()}
    total = r['rpn_cls'] + r['rpn_regr'] + r['class_cls']
    rows.append(dict(epoch=epoch, lr=1e-5, loss_rpn_cls=r['rpn_cls'], loss_rpn_regr=r['rpn_regr'],
                     loss_class_cls=r['class_cls'], class_acc=r['class_acc'], hit_rate_iou50=r['overlap'],
                     total_loss=total))
    print(f'Epoch {epoch}/15 | Mean number of bounding boxes from RPN overlapping ground truth boxes: '
          f'{r["overlap"]:.3f} | Classifier accuracy for bounding boxes from RPN: {r["class_acc"]:.3f} | '
          f'Loss RPN classifier: {r["rpn_cls"]:.4f} | Loss RPN regression: {r["rpn_regr"]:.4f} | '
          f'Loss Detector classifier: {r["class_cls"]:.4f} | Total loss: {total:.4f}')
with open('metrics.csv', 'w', newline='') as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0]))
    wr.writeheader(); wr.writerows(rows)
