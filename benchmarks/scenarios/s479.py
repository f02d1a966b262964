# XiaXuehai/faceboxes trainvisdom.py with the validation loop put back in, in miniature: ListDataset reads a list
# file with lines "image_name.jpg num_faces x y w h 1 ...", scales the boxes and encodes them against the
# default boxes (DataEncoder.encode: IoU, best box per anchor, loc/conf targets); MultiBoxLoss with hard
# negative mining; Adam lr 0.001, weight_decay 1e-4, batch 32. A tiny FaceBoxes-like network with 8x8, 4x4 and
# 2x2 output maps replaces the real one, and synthetic 64 x 64 images with bright square "faces" (kept in
# memory instead of on disk) replace WIDER FACE. Some validation images have no face annotated ("... 0").
import torch
from torch import nn
import torch.nn.functional as F
import torch.utils.data as data
import itertools
import numpy as np

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
IMAGE_SIZE = 64
rng = np.random.RandomState(0)
IMAGES = {}   # stands in for the image files on disk

def write_list(prefix, n, n_empty=0):
    lines = []
    for i in range(n):
        name = '%s/img_%d.jpg' % (prefix, i)
        img = (rng.rand(IMAGE_SIZE, IMAGE_SIZE, 3) * 60).astype(np.float32)
        k = 0 if i >= n - n_empty else rng.randint(1, 4)
        parts = [name, str(k)]
        for _ in range(k):
            w = rng.randint(10, 30); x = rng.randint(0, IMAGE_SIZE - w); y = rng.randint(0, IMAGE_SIZE - w)
            img[y:y + w, x:x + w] += 150
            parts += [str(x), str(y), str(w), str(w), '1']
        IMAGES[name] = img
        lines.append(' '.join(parts))
    return lines

train_lines = write_list('data/train', 640)
val_lines = write_list('data/val', 96, n_empty=5)
val_order = np.random.RandomState(1).permutation(len(val_lines))
val_lines = [val_lines[i] for i in val_order]

class DataEncoder:
    def __init__(self):
        sizes = [s / IMAGE_SIZE for s in (12, 24, 40)]
        feature_map_sizes = (8, 4, 2)
        boxes = []
        for i, fmsize in enumerate(feature_map_sizes):
            for h, w in itertools.product(range(fmsize), repeat=2):
                cx = (w + 0.5) / fmsize
                cy = (h + 0.5) / fmsize
                s = sizes[i]
                boxes.append((cx, cy, s, s))
        self.default_boxes = torch.Tensor(boxes)

    def iou(self, box1, box2):
        N = box1.size(0)
        M = box2.size(0)
        lt = torch.max(box1[:, :2].unsqueeze(1).expand(N, M, 2), box2[:, :2].unsqueeze(0).expand(N, M, 2))
        rb = torch.min(box1[:, 2:].unsqueeze(1).expand(N, M, 2), box2[:, 2:].unsqueeze(0).expand(N, M, 2))
        wh = rb - lt
        wh[wh < 0] = 0
        inter = wh[:, :, 0] * wh[:, :, 1]
        area1 = (box1[:, 2] - box1[:, 0]) * (box1[:, 3] - box1[:, 1])
        area2 = (box2[:, 2] - box2[:, 0]) * (box2[:, 3] - box2[:, 1])
        area1 = area1.unsqueeze(1).expand_as(inter)
        area2 = area2.unsqueeze(0).expand_as(inter)
        return inter / (area1 + area2 - inter)

    def encode(self, boxes, classes, threshold=0.35):
        default_boxes = self.default_boxes
        iou = self.iou(boxes, torch.cat([default_boxes[:, :2] - default_boxes[:, 2:] / 2,
                                         default_boxes[:, :2] + default_boxes[:, 2:] / 2], 1))
        max_iou, max_iou_index = iou.max(1)
        iou, max_index = iou.max(0)
        boxes = boxes[max_index]
        variances = [0.1, 0.2]
        cxcy = (boxes[:, :2] + boxes[:, 2:]) / 2 - default_boxes[:, :2]
        cxcy /= variances[0] * default_boxes[:, 2:]
        wh = (boxes[:, 2:] - boxes[:, :2]) / default_boxes[:, 2:]
        wh = torch.log(wh) / variances[1]
        loc = torch.cat([cxcy, wh], 1)
        conf = classes[max_index]
        conf[iou < threshold] = 0
        return loc, conf

class ListDataset(data.Dataset):
    def __init__(self, lines, train):
        print('data init')
        self.image_size = IMAGE_SIZE
        self.train = train
        self.fnames = []; self.boxes = []; self.labels = []
        self.data_encoder = DataEncoder()
        for line in lines:
            splited = line.strip().split()
            self.fnames.append(splited[0])
            num_faces = int(splited[1])
            box = []; label = []
            for i in range(num_faces):
                x = float(splited[2 + 5 * i]); y = float(splited[3 + 5 * i])
                w = float(splited[4 + 5 * i]); h = float(splited[5 + 5 * i])
                c = int(splited[6 + 5 * i])
                box.append([x, y, x + w, y + h])
                label.append(c)
            self.boxes.append(torch.Tensor(box))
            self.labels.append(torch.tensor(label))
        self.num_samples = len(self.boxes)

    def __getitem__(self, idx):
        img = IMAGES[self.fnames[idx]].copy()
        boxes = self.boxes[idx].clone()
        labels = self.labels[idx].clone()
        if self.train and np.random.rand() < 0.5:      # random_flip
            img = img[:, ::-1].copy()
            xmin = IMAGE_SIZE - boxes[:, 2]; xmax = IMAGE_SIZE - boxes[:, 0]
            boxes[:, 0] = xmin; boxes[:, 2] = xmax
        h, w, _ = img.shape
        boxes /= torch.Tensor([w, h, w, h]).expand_as(boxes)
        img = torch.from_numpy(img / 255.).permute(2, 0, 1).float()
        loc_target, conf_target = self.data_encoder.encode(boxes, labels)
        return img, loc_target, conf_target

    def __len__(self):
        return self.num_samples

class MultiBoxLoss(nn.Module):
    num_classes = 2
    def cross_entropy_loss(self, x, y):
        x = x.detach(); y = y.detach()
        xmax = x.max()
        log_sum_exp = torch.log(torch.sum(torch.exp(x - xmax), 1, keepdim=True)) + xmax
        return log_sum_exp - x.gather(1, y)
    def hard_negative_mining(self, conf_loss, pos):
        batch_size, num_boxes = pos.size()
        conf_loss[pos.view(-1, 1)] = 0
        conf_loss = conf_loss.view(batch_size, -1)
        _, idx = conf_loss.sort(1, descending=True)
        _, rank = idx.sort(1)
        num_pos = pos.long().sum(1, keepdim=True)
        num_neg = torch.clamp(3 * num_pos, max=num_boxes - 1)
        return rank < num_neg.expand_as(rank)
    def forward(self, loc_preds, loc_targets, conf_preds, conf_targets):
        pos = conf_targets > 0
        num_matched_boxes = pos.sum().item()
        pos_mask1 = pos.unsqueeze(2).expand_as(loc_preds)
        loc_loss = F.smooth_l1_loss(loc_preds[pos_mask1].view(-1, 4), loc_targets[pos_mask1].view(-1, 4)) * 4.
        conf_loss = self.cross_entropy_loss(conf_preds.view(-1, self.num_classes), conf_targets.view(-1, 1))
        neg = self.hard_negative_mining(conf_loss, pos)
        mask = pos.unsqueeze(2).expand_as(conf_preds) | neg.unsqueeze(2).expand_as(conf_preds)
        preds = conf_preds[mask].view(-1, self.num_classes)
        targets = conf_targets[pos | neg]
        conf_loss = F.cross_entropy(preds, targets, reduction='sum') / num_matched_boxes
        return loc_loss + conf_loss

class FaceBox(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU(),
                                nn.Conv2d(32, 32, 3, 2, 1), nn.ReLU())          # 8x8
        self.c2 = nn.Sequential(nn.Conv2d(32, 32, 3, 2, 1), nn.ReLU())       # 4x4
        self.c3 = nn.Sequential(nn.Conv2d(32, 32, 3, 2, 1), nn.ReLU())       # 2x2
        self.loc = nn.ModuleList([nn.Conv2d(32, 4, 3, padding=1) for _ in range(3)])
        self.conf = nn.ModuleList([nn.Conv2d(32, 2, 3, padding=1) for _ in range(3)])
    def forward(self, x):
        f1 = self.c1(x); f2 = self.c2(f1); f3 = self.c3(f2)
        locs, confs = [], []
        for f, l, c in zip((f1, f2, f3), self.loc, self.conf):
            locs.append(l(f).permute(0, 2, 3, 1).reshape(x.size(0), -1, 4))
            confs.append(c(f).permute(0, 2, 3, 1).reshape(x.size(0), -1, 2))
        return torch.cat(locs, 1), torch.cat(confs, 1)

learning_rate = 0.001
num_epochs = 5
batch_size = 32
net = FaceBox()
criterion = MultiBoxLoss()
optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate, weight_decay=1e-4)
train_dataset = ListDataset(train_lines, train=True)
train_loader = data.DataLoader(train_dataset, batch_size=batch_size, shuffle=True)
val_dataset = ListDataset(val_lines, train=False)
val_loader = data.DataLoader(val_dataset, batch_size=batch_size, shuffle=False)
print('the dataset has %d images' % (len(train_dataset)))
print('the batch_size is %d' % (batch_size))

for epoch in range(num_epochs):
    print('\n\nStarting epoch %d / %d' % (epoch + 1, num_epochs))
    print('Learning Rate for this epoch: {}'.format(learning_rate))
    total_loss = 0.
    net.train()
    for i, (images, loc_targets, conf_targets) in enumerate(train_loader):
        loc_preds, conf_preds = net(images)
        loss = criterion(loc_preds, loc_targets, conf_preds, conf_targets)
        total_loss += loss.item()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (i + 1) % 10 == 0:
            print('Epoch [{}/{}], Iter [{}/{}] Loss: {:.4f}, average_loss: {:.4f}'.format(
                epoch + 1, num_epochs, i + 1, len(train_loader), loss.item(), total_loss / (i + 1)))
    val_loss = 0.0
    net.eval()
    for idx, (images, loc_targets, conf_targets) in enumerate(val_loader):
        with torch.no_grad():
            loc_preds, conf_preds = net(images)
            loss = criterion(loc_preds, loc_targets, conf_preds, conf_targets)
            val_loss += loss.item()
    val_loss /= len(val_dataset) / batch_size
    print('loss of val is {}'.format(val_loss))
    print('saving model ...')
