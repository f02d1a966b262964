# zzzxxxttt/pytorch_simple_CenterNet_45 issue 26 ("IndexError: index 100 is out of bounds for axis 0 with size 100")
# in miniature: datasets/pascal.py allocates the per-image regression targets with a fixed length,
# self.max_objs = 100 (w_h_, regs, inds, ind_masks = np.zeros((self.max_objs, ...))), and fills them in
# "for k, (bbox, label) in enumerate(zip(bboxes, labels))", so an image with more than 100 annotated objects fails
# in __getitem__ at "w_h_[k] = 1. * w, 1. * h". Here: the repository's training loop (Adam lr 5e-4, loss =
# hmap_loss + 1 * reg_loss + 0.1 * w_h_loss with the focal _neg_loss and the masked L1 _reg_loss, shuffle=True,
# drop_last=True, the log line "[epoch/num_epochs-batch/len]  hmap_loss= .. reg_loss= .. w_h_loss= .. (.. samples/sec)")
# on a custom one-class dataset in the Pascal loader's format: 200 synthetic 128 x 128 images of bright blobs
# (1-40 objects each; one image, a dense scene, has 112), annotations as COCO-style xywh boxes held in memory,
# stride-4 output maps, a small conv net instead of the hourglass / ResDCN backbone, no augmentation, batch 8,
# num_workers 0, log interval 5 batches. metrics.csv has the three losses of every training batch.
import csv
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as data

torch.manual_seed(317)
torch.set_num_threads(1)


def gaussian_radius(det_size, min_overlap=0.7):
    height, width = det_size
    a1 = 1
    b1 = (height + width)
    c1 = width * height * (1 - min_overlap) / (1 + min_overlap)
    r1 = (b1 + math.sqrt(b1 ** 2 - 4 * a1 * c1)) / 2
    a2 = 4
    b2 = 2 * (height + width)
    c2 = (1 - min_overlap) * width * height
    r2 = (b2 + math.sqrt(b2 ** 2 - 4 * a2 * c2)) / 2
    a3 = 4 * min_overlap
    b3 = -2 * min_overlap * (height + width)
    c3 = (min_overlap - 1) * width * height
    r3 = (b3 + math.sqrt(b3 ** 2 - 4 * a3 * c3)) / 2
    return min(r1, r2, r3)


def draw_gaussian(heatmap, center, radius):
    d = 2 * radius + 1
    sigma = d / 6
    ys, xs = np.ogrid[-radius:radius + 1, -radius:radius + 1]
    g = np.exp(-(xs * xs + ys * ys) / (2 * sigma * sigma))
    x, y = int(center[0]), int(center[1])
    H, W = heatmap.shape
    left, right = min(x, radius), min(W - x, radius + 1)
    top, bottom = min(y, radius), min(H - y, radius + 1)
    hm = heatmap[y - top:y + bottom, x - left:x + right]
    gg = g[radius - top:radius + bottom, radius - left:radius + right]
    np.maximum(hm, gg, out=hm)


def make_custom_dataset(n_images=200, dense_index=137, seed=0):
    rng = np.random.RandomState(seed)
    images, annotations = [], []
    for i in range(n_images):
        img = rng.rand(128, 128, 3).astype(np.float32) * 0.2
        n_obj = 112 if i == dense_index else rng.randint(1, 41)
        boxes = []
        for _ in range(n_obj):
            s = rng.randint(3, 7) if i == dense_index else rng.randint(5, 17)
            x0, y0 = rng.randint(0, 128 - s), rng.randint(0, 128 - s)
            img[y0:y0 + s, x0:x0 + s, :] += 0.6 + 0.2 * rng.rand(3)
            boxes.append([float(x0), float(y0), float(s), float(s)])  # xywh
        images.append(np.clip(img, 0, 1))
        annotations.append([{'bbox': b, 'category_id': 1} for b in boxes])
    return images, annotations


class PascalVOC(data.Dataset):
    def __init__(self, img_size=128):
        super(PascalVOC, self).__init__()
        self.num_classes = 1
        self.valid_ids = np.arange(1, 2, dtype=np.int32)
        self.cat_ids = {v: i for i, v in enumerate(self.valid_ids)}
        self.max_objs = 100
        self.down_ratio = 4
        self.img_size = {'h': img_size, 'w': img_size}
        self.fmap_size = {'h': img_size // self.down_ratio, 'w': img_size // self.down_ratio}
        self.gaussian_iou = 0.7
        self.imgs, self.anns = make_custom_dataset()
        self.num_samples = len(self.imgs)
        print('Loaded %d train samples' % self.num_samples)

    def __getitem__(self, index):
        annotations = self.anns[index]
        labels = np.array([self.cat_ids[anno['category_id']] for anno in annotations])
        bboxes = np.array([anno['bbox'] for anno in annotations], dtype=np.float32)
        bboxes[:, 2:] += bboxes[:, :2]  # xywh to xyxy
        img = self.imgs[index].copy()
        img = (img - 0.25) / 0.25
        img = img.transpose(2, 0, 1)

        hmap = np.zeros((self.num_classes, self.fmap_size['h'], self.fmap_size['w']), dtype=np.float32)
        w_h_ = np.zeros((self.max_objs, 2), dtype=np.float32)
        regs = np.zeros((self.max_objs, 2), dtype=np.float32)
        inds = np.zeros((self.max_objs,), dtype=np.int64)
        ind_masks = np.zeros((self.max_objs,), dtype=np.uint8)

        for k, (bbox, label) in enumerate(zip(bboxes, labels)):
            bbox = bbox / self.down_ratio
            bbox[[0, 2]] = np.clip(bbox[[0, 2]], 0, self.fmap_size['w'] - 1)
            bbox[[1, 3]] = np.clip(bbox[[1, 3]], 0, self.fmap_size['h'] - 1)
            h, w = bbox[3] - bbox[1], bbox[2] - bbox[0]
            if h > 0 and w > 0:
                obj_c = np.array([(bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2], dtype=np.float32)
                obj_c_int = obj_c.astype(np.int32)
                radius = max(0, int(gaussian_radius((math.ceil(h), math.ceil(w)), self.gaussian_iou)))
                draw_gaussian(hmap[label], obj_c_int, radius)
                w_h_[k] = 1. * w, 1. * h
                regs[k] = obj_c - obj_c_int
                inds[k] = obj_c_int[1] * self.fmap_size['w'] + obj_c_int[0]
                ind_masks[k] = 1

        return {'image': img, 'hmap': hmap, 'w_h_': w_h_, 'regs': regs, 'inds': inds, 'ind_masks': ind_masks}

    def __len__(self):
        return self.num_samples


class SmallCenterNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
            nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
            nn.Conv2d(64, 64, 3, 1, 1), nn.BatchNorm2d(64), nn.ReLU(inplace=True))
        self.hmap = nn.Sequential(nn.Conv2d(64, 64, 3, 1, 1), nn.ReLU(inplace=True), nn.Conv2d(64, num_classes, 1))
        self.regs = nn.Sequential(nn.Conv2d(64, 64, 3, 1, 1), nn.ReLU(inplace=True), nn.Conv2d(64, 2, 1))
        self.w_h_ = nn.Sequential(nn.Conv2d(64, 64, 3, 1, 1), nn.ReLU(inplace=True), nn.Conv2d(64, 2, 1))
        self.hmap[-1].bias.data.fill_(-2.19)

    def forward(self, x):
        f = self.body(x)
        return [[self.hmap(f), self.regs(f), self.w_h_(f)]]


def _tranpose_and_gather_feature(feat, ind):
    feat = feat.permute(0, 2, 3, 1).contiguous().view(feat.size(0), -1, feat.size(1))
    ind = ind.unsqueeze(2).expand(ind.size(0), ind.size(1), feat.size(2))
    return feat.gather(1, ind)


def _neg_loss(preds, targets):
    pos_inds = targets.eq(1).float()
    neg_inds = targets.lt(1).float()
    neg_weights = torch.pow(1 - targets, 4)
    loss = 0
    for pred in preds:
        pred = torch.clamp(torch.sigmoid(pred), min=1e-4, max=1 - 1e-4)
        pos_loss = torch.log(pred) * torch.pow(1 - pred, 2) * pos_inds
        neg_loss = torch.log(1 - pred) * torch.pow(pred, 2) * neg_weights * neg_inds
        num_pos = pos_inds.float().sum()
        pos_loss, neg_loss = pos_loss.sum(), neg_loss.sum()
        if num_pos == 0:
            loss = loss - neg_loss
        else:
            loss = loss - (pos_loss + neg_loss) / num_pos
    return loss / len(preds)


def _reg_loss(regs, gt_regs, mask):
    mask = mask[:, :, None].expand_as(gt_regs).float()
    loss = sum(F.l1_loss(r * mask, gt_regs * mask, reduction='sum') / (mask.sum() + 1e-4) for r in regs)
    return loss / len(regs)


num_epochs, batch_size, log_interval = 5, 8, 5
print('Setting up data...')
train_dataset = PascalVOC()
train_loader = data.DataLoader(train_dataset, batch_size=batch_size, shuffle=True, num_workers=0, drop_last=True)
print('Creating model...')
model = SmallCenterNet(train_dataset.num_classes)
optimizer = torch.optim.Adam(model.parameters(), 5e-4)
f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['epoch', 'batch', 'hmap_loss', 'reg_loss', 'w_h_loss'])
print('Starting training...')
for epoch in range(1, num_epochs + 1):
    print('\n Epoch: %d' % epoch)
    model.train()
    tic = time.perf_counter()
    for batch_idx, batch in enumerate(train_loader):
        outputs = model(batch['image'])
        hmap, regs, w_h_ = zip(*outputs)
        regs = [_tranpose_and_gather_feature(r, batch['inds']) for r in regs]
        w_h_ = [_tranpose_and_gather_feature(r, batch['inds']) for r in w_h_]
        hmap_loss = _neg_loss(hmap, batch['hmap'])
        reg_loss = _reg_loss(regs, batch['regs'], batch['ind_masks'])
        w_h_loss = _reg_loss(w_h_, batch['w_h_'], batch['ind_masks'])
        loss = hmap_loss + 1 * reg_loss + 0.1 * w_h_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        wr.writerow([epoch, batch_idx, '%.5f' % hmap_loss.item(), '%.5f' % reg_loss.item(), '%.5f' % w_h_loss.item()])
        f.flush()
        if batch_idx % log_interval == 0:
            duration = time.perf_counter() - tic
            tic = time.perf_counter()
            print('[%d/%d-%d/%d] ' % (epoch, num_epochs, batch_idx, len(train_loader)) +
                  ' hmap_loss= %.5f reg_loss= %.5f w_h_loss= %.5f' %
                  (hmap_loss.item(), reg_loss.item(), w_h_loss.item()) +
                  ' (%d samples/sec)' % (batch_size * log_interval / duration))
f.close()
