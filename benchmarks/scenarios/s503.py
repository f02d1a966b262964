# VainF/DeepLabV3Plus-Pytorch (main.py, datasets/voc.py) in miniature: the repository's training loop run on the
# poster's own data set converted to Pascal VOC format (JPEG images, palette PNG masks, num_classes and cmap changed):
# VOCSegmentation-style dataset with ExtRandomScale / ExtRandomCrop / ExtRandomHorizontalFlip / ExtToTensor /
# ExtNormalize, DataLoader(shuffle=True, drop_last=True), SGD with backbone lr 0.1 * opts.lr and classifier lr opts.lr
# (lr 0.01, momentum 0.9, weight_decay 1e-4), PolyLR(total_itrs, power=0.9), nn.CrossEntropyLoss(ignore_index=255,
# reduction='mean'), "Epoch %d, Itrs %d/%d, Loss=%f" every 10 iterations and validation every val_interval. A small
# DeepLabV3+-like network (strided encoder, ASPP with three dilations and image pooling, low-level skip, decoder)
# replaces deeplabv3plus_mobilenet; 240 training and 40 validation synthetic 48 x 48 scenes with 3 classes
# (background, two object kinds) replace the poster's data. As in the report, some label masks contain a value that
# is neither a class id nor the ignore index: in one training mask the "void" border around the objects was written
# as 225 instead of 255, so the first batch that draws it fails inside the loss with
# "IndexError: Target 225 is out of bounds.".
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from torch.utils import data

torch.manual_seed(1); np.random.seed(1); torch.set_num_threads(1)
rs = np.random.RandomState(1)
num_classes, S = 3, 48

def scene(void_value=255):
    yy, xx = np.mgrid[0:S, 0:S].astype(np.float32)
    img = np.ones((S, S, 3), np.float32) * rs.uniform(0.2, 0.6, 3) + rs.normal(0, 0.05, (S, S, 3))
    lab = np.zeros((S, S), np.uint8)
    for _ in range(rs.randint(1, 4)):
        c = rs.randint(1, num_classes); cx, cy, r = rs.uniform(8, 40), rs.uniform(8, 40), rs.uniform(4, 9)
        d = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2) if c == 1 else np.maximum(np.abs(xx - cx), np.abs(yy - cy))
        img[d < r] = (np.array([0.9, 0.3, 0.2]) if c == 1 else np.array([0.2, 0.4, 0.9])) + rs.normal(0, 0.05, (int((d < r).sum()), 3))
        lab[(d >= r - 1) & (d < r + 1)] = void_value            # VOC-style "void" outline
        lab[d < r - 1] = c
    return np.clip(img, 0, 1).astype(np.float32), lab

class VOCSegmentation(data.Dataset):
    def __init__(self, n, bad=()):
        self.items = [scene(225 if i in bad else 255) for i in range(n)]
    def __getitem__(self, index):
        img, target = self.items[index]
        img, target = torch.tensor(img.transpose(2, 0, 1)), torch.tensor(target.astype(np.int64))
        if torch.rand(1).item() < 0.5: img, target = img.flip(-1), target.flip(-1)      # ExtRandomHorizontalFlip
        img = (img - torch.tensor([0.485, 0.456, 0.406])[:, None, None]) / torch.tensor([0.229, 0.224, 0.225])[:, None, None]
        return img, target
    def __len__(self): return len(self.items)

def cbr(i, o, s=1, d=1): return nn.Sequential(nn.Conv2d(i, o, 3, s, d, dilation=d, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

class DeepLabV3PlusLite(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.backbone = nn.ModuleDict({'low': nn.Sequential(cbr(3, 16, 2), cbr(16, 16)), 'high': nn.Sequential(cbr(16, 32, 2), cbr(32, 32))})
        self.classifier = nn.ModuleDict({
            'aspp': nn.ModuleList([nn.Sequential(nn.Conv2d(32, 32, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True)), cbr(32, 32, d=2), cbr(32, 32, d=3)]),
            'pool': nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(32, 32, 1), nn.ReLU(inplace=True)),
            'project': nn.Sequential(nn.Conv2d(128, 32, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True)),
            'low_proj': nn.Sequential(nn.Conv2d(16, 8, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True)),
            'head': nn.Sequential(cbr(40, 32), nn.Conv2d(32, num_classes, 1))})
    def forward(self, x):
        size = x.shape[2:]
        low = self.backbone['low'](x); high = self.backbone['high'](low)
        c = self.classifier
        feats = [m(high) for m in c['aspp']] + [c['pool'](high).expand(-1, -1, *high.shape[2:])]
        h = F.interpolate(c['project'](torch.cat(feats, 1)), size=low.shape[2:], mode='bilinear', align_corners=False)
        out = c['head'](torch.cat([c['low_proj'](low), h], 1))
        return F.interpolate(out, size=size, mode='bilinear', align_corners=False)

class Opts: total_itrs, lr, batch_size, val_batch_size, weight_decay, val_interval, model = 300, 0.01, 8, 4, 1e-4, 100, 'deeplabv3plus_mobilenet'
opts = Opts()
print("Device: cpu")
train_dst, val_dst = VOCSegmentation(240, bad={171}), VOCSegmentation(40)
train_loader = data.DataLoader(train_dst, batch_size=opts.batch_size, shuffle=True, num_workers=0, drop_last=True)
val_loader = data.DataLoader(val_dst, batch_size=opts.val_batch_size, shuffle=True, num_workers=0)
print("Dataset: voc, Train set: %d, Val set: %d" % (len(train_dst), len(val_dst)))

model = DeepLabV3PlusLite(num_classes=num_classes)
optimizer = torch.optim.SGD(params=[
    {'params': model.backbone.parameters(), 'lr': 0.1 * opts.lr},
    {'params': model.classifier.parameters(), 'lr': opts.lr},
], lr=opts.lr, momentum=0.9, weight_decay=opts.weight_decay)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: (1 - it / opts.total_itrs) ** 0.9)   # utils.PolyLR
criterion = nn.CrossEntropyLoss(ignore_index=255, reduction='mean')
print("[!] Retrain")

def validate():
    model.eval(); hist = np.zeros((num_classes, num_classes))
    with torch.no_grad():
        for images, labels in val_loader:
            preds = model(images).argmax(1)
            k = labels != 255
            hist += np.bincount(num_classes * labels[k].numpy() + preds[k].numpy(), minlength=num_classes ** 2).reshape(num_classes, num_classes)
    iu = np.diag(hist) / (hist.sum(1) + hist.sum(0) - np.diag(hist))
    return {'Overall Acc': np.diag(hist).sum() / hist.sum(), 'Mean IoU': np.nanmean(iu)}

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f); wr.writerow(['itr', 'epoch', 'loss', 'lr', 'val_miou'])
interval_loss, cur_itrs, cur_epochs = 0, 0, 0
while True:  # cur_itrs < opts.total_itrs:
    # =====  Train  =====
    model.train()
    cur_epochs += 1
    for (images, labels) in train_loader:
        cur_itrs += 1
        optimizer.zero_grad()
        outputs = model(images)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        np_loss = loss.detach().cpu().numpy()
        interval_loss += np_loss
        wr.writerow([cur_itrs, cur_epochs, round(float(np_loss), 5), optimizer.param_groups[1]['lr'], '']); f.flush()
        if (cur_itrs) % 10 == 0:
            interval_loss = interval_loss / 10
            print("Epoch %d, Itrs %d/%d, Loss=%f" % (cur_epochs, cur_itrs, opts.total_itrs, interval_loss), flush=True)
            interval_loss = 0.0
        if (cur_itrs) % opts.val_interval == 0:
            print("validation...")
            score = validate()
            print("Overall Acc: %f\nMean IoU: %f" % (score['Overall Acc'], score['Mean IoU']), flush=True)
            wr.writerow([cur_itrs, cur_epochs, '', optimizer.param_groups[1]['lr'], round(score['Mean IoU'], 4)]); f.flush()
            model.train()
        scheduler.step()
        if cur_itrs >= opts.total_itrs:
            f.close()
            raise SystemExit(0)
