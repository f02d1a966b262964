# sunjesse/shape-attentive-unet issue "input size and target size not match error" in miniature: train.py of SAUNet
# (Shape Attentive U-Net) on AC17-style cardiac MRI slices. The training loader gives batched masks (seg [B, H, W],
# edge [B, 1, H, W]) and SegmentationModule.forward(feed_dict, epoch) with segSize None computes ACLoss (weighted
# CrossEntropy [1, 4, 5, 1] + dice on the 4-class segmentation + BCE on the shape-stream edge map), so the training
# iterations run; eval() then walks a batch_size=1 validation loader with user_scattered_collate, takes
# batch_data[0], unsqueezes only the image, and calls segmentation_module(feed_dict, epoch=0, segSize=segSize), whose
# inference branch (models/models.py line 104 before the fix) passes (feed_dict['mask'][0].long(),
# feed_dict['mask'][1]) to the criterion: the segmentation target has no batch dimension ([H, W] against logits
# [1, 4, H, W]), and the first validation slice stops the run with "ValueError: Expected input batch_size (1) to match
# target batch_size (H)".
# Scaled down for the scenario: a small two-level U-Net with a gated edge stream instead of the albunet-based SAUNet,
# synthetic 64 x 64 slices (left-ventricle cavity, myocardium and right ventricle as ellipses on a noisy background;
# 160 training and 20 validation slices), batch_size_per_gpu 4 with drop_last (40 iterations an epoch), RAdam
# (torch.optim.RAdam) lr 5e-3 with the cosine epoch schedule, the "Epoch: [e/max], Iter: [n], ..." line every 10
# iterations; CPU instead of .cuda(); metrics.csv has every training iteration.
import csv
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
rng = np.random.RandomState(0)
H = 64
NUM_CLASS = 4


def make_slice(rng):
    yy, xx = np.mgrid[0:H, 0:H].astype(np.float32)
    cx, cy = rng.uniform(26, 38, 2)
    r = rng.uniform(7, 11)
    mask = np.zeros((H, H), np.int64)
    rv = ((xx - (cx - r * 1.9)) / (r * 0.9)) ** 2 + ((yy - cy) / (r * 1.5)) ** 2 < 1
    outer = ((xx - cx) / (r * 1.5)) ** 2 + ((yy - cy) / (r * 1.5)) ** 2 < 1
    inner = ((xx - cx) / r) ** 2 + ((yy - cy) / r) ** 2 < 1
    mask[rv] = 3
    mask[outer] = 2
    mask[inner] = 1
    img = np.choose(mask, [0.1, 0.9, 0.45, 0.75]).astype(np.float32)
    img = img + rng.normal(0, 0.15, img.shape).astype(np.float32)
    edge = np.zeros((H, H), np.float32)
    edge[:-1, :] += mask[:-1, :] != mask[1:, :]
    edge[:, :-1] += mask[:, :-1] != mask[:, 1:]
    edge = (edge > 0).astype(np.float32)
    return img, mask, edge


class AC17_2DLoad(torch.utils.data.Dataset):
    def __init__(self, n, rng):
        self.items = [make_slice(rng) for _ in range(n)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        img, mask, edge = self.items[i]
        return {'image': torch.from_numpy(img).unsqueeze(0),
                'mask': [torch.from_numpy(mask), torch.from_numpy(edge).unsqueeze(0)]}


def user_scattered_collate(batch):
    return batch


def dice_loss(true, logits, eps=1e-7):
    num_classes = logits.shape[1]
    if len(true.shape) == 2:
        true = true.unsqueeze(0).unsqueeze(0)
    elif len(true.shape) == 3:
        true = true.unsqueeze(1)
    true_1_hot = torch.eye(num_classes)[true.squeeze(1)]
    true_1_hot = true_1_hot.permute(0, 3, 1, 2).float()
    probas = F.softmax(logits, dim=1)
    dims = (0,) + tuple(range(2, true.ndimension()))
    intersection = torch.sum(probas * true_1_hot, dims)
    cardinality = torch.sum(probas + true_1_hot, dims)
    return 1 - (2. * intersection / (cardinality + eps)).mean()


class ACLoss(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.CELoss = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 4.0, 5.0, 1.0]))
        self.bce2d = nn.BCELoss()

    def forward(self, pred, target, epoch=0):
        seg, edge_in = pred
        seg_t, edge_t = target
        ce = self.CELoss(seg, seg_t.long())
        dice = dice_loss(seg_t.long(), seg)
        edge = self.bce2d(edge_in, edge_t)
        return dice + ce + edge


class SmallSAUNet(nn.Module):
    def __init__(self, num_class):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.dec = nn.Sequential(nn.Conv2d(33, 16, 3, padding=1), nn.ReLU())
        self.gate = nn.Conv2d(32, 1, 1)
        self.edge = nn.Conv2d(16, 1, 1)
        self.head = nn.Conv2d(16, num_class, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        u = self.up(e2)
        g = torch.sigmoid(self.gate(torch.cat([e1, u], 1)))  # shape-stream gate
        edge_out = torch.sigmoid(self.edge(e1 * g))
        d = self.dec(torch.cat([u, e1, edge_out], 1))
        return self.head(d), edge_out


class SegmentationModule(nn.Module):
    def __init__(self, crit, unet, num_class):
        super().__init__()
        self.crit = crit
        self.unet = unet
        self.num_class = num_class

    def pixel_acc(self, pred, label):
        valid = (label >= 0).long()
        acc_sum = torch.sum(valid * (pred == label).long())
        return acc_sum.float() / (torch.sum(valid).float() + 1e-10)

    def forward(self, feed_dict, epoch, *, segSize=None):
        # training
        if segSize is None:
            p = self.unet(feed_dict['image'])
            loss = self.crit(p, feed_dict['mask'], epoch=epoch)
            acc = self.pixel_acc(torch.argmax(p[0], dim=1), feed_dict['mask'][0].long())
            return loss, acc
        # test
        if segSize is True:
            p = self.unet(feed_dict['image'])[0]
            return F.softmax(p, dim=1)
        # inference
        else:
            p = self.unet(feed_dict['image'])
            loss = self.crit((p[0], p[1]), (feed_dict['mask'][0].long(), feed_dict['mask'][1]))
            pred = F.softmax(p[0], dim=1)
            return pred, loss


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, v):
        self.sum += float(v)
        self.count += 1

    def average(self):
        return self.sum / max(self.count, 1)


def intersectionAndUnion(pred, label, num_class):
    inter = np.histogram(pred[pred == label], bins=num_class, range=(0, num_class))[0]
    ap = np.histogram(pred, bins=num_class, range=(0, num_class))[0]
    al = np.histogram(label, bins=num_class, range=(0, num_class))[0]
    return inter, ap + al - inter


def evaluate(loader_val, segmentation_module, num_class):
    inter_sum, union_sum = np.zeros(num_class), np.zeros(num_class)
    loss_meter = AverageMeter()
    segmentation_module.eval()
    for batch_data in loader_val:
        batch_data = batch_data[0]
        seg_label = batch_data["mask"][0].numpy()
        batch_data["image"] = batch_data["image"].unsqueeze(0)
        with torch.no_grad():
            segSize = (seg_label.shape[0], seg_label.shape[1])
            feed_dict = batch_data.copy()
            scores, loss = segmentation_module(feed_dict, epoch=0, segSize=segSize)
            loss_meter.update(loss)
            pred = torch.max(scores, dim=1)[1].squeeze(0).numpy()
        inter, union = intersectionAndUnion(pred, seg_label, num_class)
        inter_sum += inter
        union_sum += union
    iou = inter_sum / (union_sum + 1e-10)
    for i, _iou in enumerate(iou):
        if i >= 1:
            print('class [{}], IoU: {:.4f}'.format(i, _iou))
    print('loss: {:.4f}'.format(loss_meter.average()))
    return iou[1:], loss_meter.average()


def main():
    num_epoch, batch_size, lr = 3, 4, 5e-3
    unet = SmallSAUNet(NUM_CLASS)
    print("Froze the following layers: ")
    print()
    segmentation_module = SegmentationModule(ACLoss(), unet, NUM_CLASS)
    loader_train = torch.utils.data.DataLoader(AC17_2DLoad(160, rng), batch_size=batch_size, shuffle=True,
                                               drop_last=True)
    loader_val = torch.utils.data.DataLoader(AC17_2DLoad(20, rng), batch_size=1, shuffle=False,
                                             collate_fn=user_scattered_collate, drop_last=True)
    optimizer = torch.optim.RAdam(unet.parameters(), lr=lr, betas=(0.9, 0.999))
    running_lr = lr
    out = open('metrics.csv', 'w', newline='')
    w = csv.writer(out)
    w.writerow(['epoch', 'iter', 'loss', 'acc'])
    for epoch in range(1, num_epoch + 1):
        segmentation_module.train()
        ave_loss, ave_acc = AverageMeter(), AverageMeter()
        tic = time.time()
        batch_time = AverageMeter()
        iter_count = 0
        for batch_data in loader_train:
            segmentation_module.zero_grad()
            loss, acc = segmentation_module(batch_data, epoch)
            loss = loss.mean()
            loss.backward()
            optimizer.step()
            batch_time.update(time.time() - tic)
            tic = time.time()
            iter_count += batch_size
            ave_loss.update(loss.item())
            ave_acc.update(acc.item() * 100)
            w.writerow([epoch, iter_count, loss.item(), acc.item()])
            if iter_count % (batch_size * 10) == 0:
                print('Epoch: [{}/{}], Iter: [{}], Time: {:.2f}, Data: {:.2f}, lr_unet: {:.6f}, Accuracy: {:4.2f}, '
                      'Loss: {:.6f}'.format(epoch, num_epoch, iter_count, batch_time.average(), 0.0, running_lr,
                                            ave_acc.average(), ave_loss.average()))
        out.flush()
        running_lr = lr * 0.5 * (1 + math.cos(3.14159 * epoch / num_epoch))
        for g in optimizer.param_groups:
            g['lr'] = running_lr
        iou, vloss = evaluate(loader_val, segmentation_module, NUM_CLASS)
    out.close()
    print('Training Done!')


if __name__ == '__main__':
    main()
