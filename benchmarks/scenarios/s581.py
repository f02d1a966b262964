# bigmb/Unet-Segmentation-Pytorch-Nest-of-Unets issue "how to assure the identical transform on both image and
# labels" (29) in miniature: Data_Loader.py's Images_Dataset_folder before pull request 30 ("fix the random
# transformation on both image and target", commit 4b3580f9) builds two independent pipelines, self.tx for the
# image (CenterCrop(96), RandomRotation((-10, 10)), ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4),
# ToTensor, Normalize(0.5, 0.5)) and self.lx for the label (CenterCrop(96), Grayscale, ToTensor), and
# __getitem__ returns self.tx(i1), self.lx(l1): the image is rotated by a random angle in [-10, 10] degrees and its
# mask is not rotated at all. Kept from pytorch_run.py: U_Net(3, 1), batch_size 4, valid_size 0.15 drawn with
# SubsetRandomSampler from the same Images_Dataset_folder (so the validation pairs are misaligned too), Adam lr
# 0.001 with CosineAnnealingLR(opt, MAX_STEP=1e10, eta_min=1e-5) stepped with the epoch (the rate stays 0.001),
# calc_loss = 0.5 * BCE-with-logits + 0.5 * dice_loss, and the line "Epoch: i/n \tTraining Loss: .. \tValidation
# Loss: ..". torchvision is not needed: the transforms are written out (nearest-neighbour rotation about the
# centre with zero fill, as torchvision's RandomRotation; ColorJitter factors drawn in [0.6, 1.4]).
# Scaled / chosen here: 120 synthetic 72 x 72 RGB "cell" pictures (4-8 coloured ellipses on a textured
# background, mask = union of the ellipses), CenterCrop(64) instead of 96, a 3-level U-Net with 8/16/32 channels,
# 30 epochs instead of the script's 15. metrics.csv has every batch loss and the per-epoch losses, plus the Dice
# score of the validation predictions against the masks the loader returns.
import csv
import math
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image, ImageDraw, ImageEnhance
from torch.utils.data import DataLoader, Dataset, SubsetRandomSampler

torch.manual_seed(0)
np.random.seed(0)
random.seed(0)
torch.set_num_threads(1)


# ---------------------------------------------------------------- synthetic image / mask folders (in memory)
def make_pair(rng):
    size = 72
    base = rng.uniform(40, 90, size=3)
    noise = rng.normal(0, 12, size=(size, size, 1)) + rng.normal(0, 6, size=(size, size, 3))
    yy, xx = np.mgrid[0:size, 0:size]
    shade = (xx / size * rng.uniform(-20, 20) + yy / size * rng.uniform(-20, 20))[..., None]
    img = np.clip(base + noise + shade, 0, 255).astype(np.uint8)
    im = Image.fromarray(img, 'RGB')
    mask = Image.new('L', (size, size), 0)
    d_im = ImageDraw.Draw(im)
    d_mk = ImageDraw.Draw(mask)
    for _ in range(rng.integers(4, 9)):
        cx, cy = rng.uniform(8, size - 8, size=2)
        rx, ry = rng.uniform(3, 8, size=2)
        col = tuple(int(c) for c in rng.uniform(130, 240, size=3))
        box = [cx - rx, cy - ry, cx + rx, cy + ry]
        d_im.ellipse(box, fill=col)
        d_mk.ellipse(box, fill=255)
    return im, mask


rng = np.random.default_rng(3)
PAIRS = [make_pair(rng) for _ in range(120)]


# ---------------------------------------------------------------- torchvision-style transforms
def center_crop(img, s):
    w, h = img.size
    l, t = int(round((w - s) / 2.0)), int(round((h - s) / 2.0))
    return img.crop((l, t, l + s, t + s))


def random_rotation(img, degrees):
    angle = float(torch.empty(1).uniform_(degrees[0], degrees[1]).item())
    return img.rotate(angle, resample=Image.NEAREST, expand=False)


def color_jitter(img, b=0.4, c=0.4, s=0.4):
    ops = []
    ops.append(('b', float(torch.empty(1).uniform_(1 - b, 1 + b))))
    ops.append(('c', float(torch.empty(1).uniform_(1 - c, 1 + c))))
    ops.append(('s', float(torch.empty(1).uniform_(1 - s, 1 + s))))
    for i in torch.randperm(3).tolist():
        k, fct = ops[i]
        if k == 'b':
            img = ImageEnhance.Brightness(img).enhance(fct)
        elif k == 'c':
            img = ImageEnhance.Contrast(img).enhance(fct)
        else:
            img = ImageEnhance.Color(img).enhance(fct)
    return img


def to_tensor(img):
    a = np.asarray(img, dtype=np.float32) / 255.0
    if a.ndim == 2:
        a = a[:, :, None]
    return torch.from_numpy(a.transpose(2, 0, 1).copy())


class Images_Dataset_folder(Dataset):
    def __init__(self, pairs, crop=64):
        self.pairs = pairs
        self.crop = crop

        def tx(im):  # self.tx = Compose([CenterCrop, RandomRotation((-10,10)), ColorJitter, ToTensor, Normalize])
            im = center_crop(im, self.crop)
            im = random_rotation(im, (-10, 10))
            im = color_jitter(im, 0.4, 0.4, 0.4)
            return (to_tensor(im) - 0.5) / 0.5

        def lx(lb):  # self.lx = Compose([CenterCrop, Grayscale, ToTensor])
            lb = center_crop(lb, self.crop)
            return to_tensor(lb.convert('L'))

        self.tx, self.lx = tx, lx

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, i):
        i1, l1 = self.pairs[i]
        return self.tx(i1), self.lx(l1)


# ---------------------------------------------------------------- U_Net (Models.py layout, fewer channels)
class conv_block(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(in_ch, out_ch, 3, padding=1, bias=True), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True),
            nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=True), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True))

    def forward(self, x):
        return self.conv(x)


class up_conv(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.up = nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(in_ch, out_ch, 3, padding=1, bias=True),
                                nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True))

    def forward(self, x):
        return self.up(x)


class U_Net(nn.Module):
    def __init__(self, in_ch=3, out_ch=1):
        super().__init__()
        f = [8, 16, 32]
        self.Maxpool = nn.MaxPool2d(2, 2)
        self.Conv1 = conv_block(in_ch, f[0])
        self.Conv2 = conv_block(f[0], f[1])
        self.Conv3 = conv_block(f[1], f[2])
        self.Up3 = up_conv(f[2], f[1])
        self.Up_conv3 = conv_block(f[2], f[1])
        self.Up2 = up_conv(f[1], f[0])
        self.Up_conv2 = conv_block(f[1], f[0])
        self.Conv = nn.Conv2d(f[0], out_ch, 1)

    def forward(self, x):
        e1 = self.Conv1(x)
        e2 = self.Conv2(self.Maxpool(e1))
        e3 = self.Conv3(self.Maxpool(e2))
        d3 = self.Up_conv3(torch.cat((e2, self.Up3(e3)), 1))
        d2 = self.Up_conv2(torch.cat((e1, self.Up2(d3)), 1))
        return self.Conv(d2)


def dice_loss(prediction, target):
    smooth = 1.0
    i_flat = prediction.view(-1)
    t_flat = target.view(-1)
    intersection = (i_flat * t_flat).sum()
    return 1 - ((2. * intersection + smooth) / (i_flat.sum() + t_flat.sum() + smooth))


def calc_loss(prediction, target, bce_weight=0.5):
    bce = F.binary_cross_entropy_with_logits(prediction, target)
    prediction = torch.sigmoid(prediction)
    dice = dice_loss(prediction, target)
    return bce * bce_weight + dice * (1 - bce_weight)


# ---------------------------------------------------------------- pytorch_run.py
batch_size = 4
print('batch_size = ' + str(batch_size))
valid_size = 0.15
epoch = 30
print('epoch = ' + str(epoch))
random_seed = 37
print('random_seed = ' + str(random_seed))

model_test = U_Net(3, 1)
Training_Data = Images_Dataset_folder(PAIRS)
num_train = len(Training_Data)
indices = list(range(num_train))
split = int(np.floor(valid_size * num_train))
np.random.seed(random_seed)
np.random.shuffle(indices)
train_idx, valid_idx = indices[split:], indices[:split]
train_sampler = SubsetRandomSampler(train_idx)
valid_sampler = SubsetRandomSampler(valid_idx)
train_loader = DataLoader(Training_Data, batch_size=batch_size, sampler=train_sampler, num_workers=0)
valid_loader = DataLoader(Training_Data, batch_size=batch_size, sampler=valid_sampler, num_workers=0)
print('training images: %d, validation images: %d' % (len(train_idx), len(valid_idx)))

initial_lr = 0.001
opt = torch.optim.Adam(model_test.parameters(), lr=initial_lr)
MAX_STEP = int(1e10)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(opt, MAX_STEP, eta_min=1e-5)

f = open('metrics.csv', 'w', newline='')
w = csv.writer(f)
w.writerow(['epoch', 'batch', 'batch_loss', 'train_loss', 'valid_loss', 'valid_dice', 'lr'])
n_iter = 1
for i in range(epoch):
    train_loss = 0.0
    valid_loss = 0.0
    lr = opt.param_groups[0]['lr']
    model_test.train()
    for b, (x, y) in enumerate(train_loader):
        opt.zero_grad()
        y_pred = model_test(x)
        lossT = calc_loss(y_pred, y)
        train_loss += lossT.item() * x.size(0)
        lossT.backward()
        opt.step()
        w.writerow([i + 1, b, '%.6f' % lossT.item(), '', '', '', lr])
        n_iter += 1
    scheduler.step()

    model_test.eval()
    inter, tot = 0.0, 0.0
    with torch.no_grad():
        for x1, y1 in valid_loader:
            y_pred1 = model_test(x1)
            lossL = calc_loss(y_pred1, y1)
            valid_loss += lossL.item() * x1.size(0)
            pb = (torch.sigmoid(y_pred1) > 0.5).float()
            inter += float((pb * y1).sum())
            tot += float(pb.sum() + y1.sum())
    train_loss = train_loss / len(train_idx)
    valid_loss = valid_loss / len(valid_idx)
    vdice = 2 * inter / max(tot, 1.0)
    print('Epoch: {}/{} \tTraining Loss: {:.6f} \tValidation Loss: {:.6f}'.format(i + 1, epoch, train_loss,
                                                                                  valid_loss), flush=True)
    w.writerow([i + 1, '', '', '%.6f' % train_loss, '%.6f' % valid_loss, '%.4f' % vdice, lr])
f.close()
print('validation Dice (thresholded predictions against the loaded masks): %.4f' % vdice)
