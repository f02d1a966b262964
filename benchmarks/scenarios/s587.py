# jfzhang95/pytorch-deeplab-xception issue 226 ("Target 10 out of bounds while training on complete dataset") in
# miniature: train.py of the repository on a custom two-class segmentation data set: SegmentationLosses(...)
# .CrossEntropyLoss (nn.CrossEntropyLoss(ignore_index=255) on the logits, divided by the batch size,
# batch_average=True), SGD with the backbone at lr and the head at 10 * lr (get_1x_lr_params / get_10x_lr_params),
# momentum 0.9, weight_decay 5e-4, the 'poly' LR_Scheduler called before every step (it prints "=>Epoches 0,
# learning rate = ..., previous best = ..." at the start of an epoch), the running "Train loss: %.3f" of the tqdm bar
# and "[Epoch: %d, numImages: %5d]" / "Loss: %.3f" after each epoch. The report: two classes, batch size 4,
# "IndexError: Target 10 is out of bounds" on CPU ("CUDA error: device-side assert triggered" on GPU), while
# "Running the model on a much smaller sample of my data works perfectly fine, the error only pops up when I try to
# train it on my complete data." Here one of the 600 label masks of the complete set holds the value 10 in a patch
# (a class id from the annotation export instead of 0/1), so training runs until the shuffled loader reaches the
# batch with that mask and then fails inside the loss. Scaled down / changed: a small conv encoder-decoder instead
# of DeepLab-Xception, synthetic 64 x 64 images of bright blobs (label 1) on a noisy background (label 0), lr 0.007
# (the repository's pascal default for batch size 4), 3 epochs planned, num_workers 0, the running loss printed
# every 10 batches instead of on a progress bar; metrics.csv has every batch loss and learning rate.
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(1)
torch.set_num_threads(1)

N_IMAGES, SIZE, NUM_CLASSES = 600, 64, 2
rng = np.random.RandomState(226)


def make_sample():
    img = rng.normal(0.3, 0.1, (3, SIZE, SIZE)).astype(np.float32)
    mask = np.zeros((SIZE, SIZE), dtype=np.uint8)
    yy, xx = np.mgrid[:SIZE, :SIZE]
    for _ in range(rng.randint(1, 4)):
        cy, cx, r = rng.randint(8, SIZE - 8), rng.randint(8, SIZE - 8), rng.randint(4, 10)
        blob = (yy - cy) ** 2 + (xx - cx) ** 2 < r ** 2
        mask[blob] = 1
        img[:, blob] += 0.4
    return img, mask


samples = [make_sample() for _ in range(N_IMAGES)]
# one annotation of the complete set was exported with another class id
bad_img, bad_mask = samples[417]
bad_mask[bad_mask == 1] = 10


class CustomSegmentation(Dataset):
    def __init__(self, samples):
        self.samples = samples

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        img, mask = self.samples[index]
        return {'image': torch.from_numpy(img), 'label': torch.from_numpy(mask.astype(np.float32))}


class SegNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU())
        self.head = nn.Sequential(nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.Conv2d(64, num_classes, 1))

    def forward(self, x):
        out = self.head(self.backbone(x))
        return F.interpolate(out, size=x.shape[2:], mode='bilinear', align_corners=True)

    def get_1x_lr_params(self):
        return self.backbone.parameters()

    def get_10x_lr_params(self):
        return self.head.parameters()


def CrossEntropyLoss(logit, target, ignore_index=255):
    n, c, h, w = logit.size()
    criterion = nn.CrossEntropyLoss(ignore_index=ignore_index)
    loss = criterion(logit, target.long())
    loss /= n  # batch_average
    return loss


class LR_Scheduler(object):
    def __init__(self, base_lr, num_epochs, iters_per_epoch):
        print('Using poly LR Scheduler!')
        self.lr, self.iters_per_epoch = base_lr, iters_per_epoch
        self.N = num_epochs * iters_per_epoch
        self.epoch = -1

    def __call__(self, optimizer, i, epoch, best_pred):
        T = epoch * self.iters_per_epoch + i
        lr = self.lr * pow((1 - 1.0 * T / self.N), 0.9)
        if epoch > self.epoch:
            print('\n=>Epoches %i, learning rate = %.4f, previous best = %.4f' % (epoch, lr, best_pred))
            self.epoch = epoch
        optimizer.param_groups[0]['lr'] = lr
        optimizer.param_groups[1]['lr'] = lr * 10
        return lr


batch_size, lr, epochs = 4, 0.007, 3
train_loader = DataLoader(CustomSegmentation(samples), batch_size=batch_size, shuffle=True, drop_last=True,
                          num_workers=0)
model = SegNet(NUM_CLASSES)
optimizer = torch.optim.SGD([{'params': model.get_1x_lr_params(), 'lr': lr},
                             {'params': model.get_10x_lr_params(), 'lr': lr * 10}],
                            momentum=0.9, weight_decay=5e-4, nesterov=False)
scheduler = LR_Scheduler(lr, epochs, len(train_loader))
print('Starting Epoch:', 0)
print('Total Epoches:', epochs)

f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['epoch', 'iter', 'loss', 'lr'])
best_pred = 0.0
for epoch in range(epochs):
    train_loss = 0.0
    model.train()
    num_img_tr = len(train_loader)
    for i, sample in enumerate(train_loader):
        image, target = sample['image'], sample['label']
        cur_lr = scheduler(optimizer, i, epoch, best_pred)
        optimizer.zero_grad()
        output = model(image)
        loss = CrossEntropyLoss(output, target)
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
        wr.writerow([epoch, i, '%.5f' % loss.item(), '%.6f' % cur_lr])
        f.flush()
        if (i + 1) % 10 == 0:
            print('Train loss: %.3f' % (train_loss / (i + 1)))
    print('[Epoch: %d, numImages: %5d]' % (epoch, i * batch_size + image.data.shape[0]))
    print('Loss: %.3f' % train_loss)
f.close()
