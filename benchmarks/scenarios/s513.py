# milesial/Pytorch-UNet issue "When i run this code ,get loss is negative??" in miniature: the repository's
# train.py as of early 2019 (commit e2e46ce: UNet(n_channels=3, n_classes=1) ending in a sigmoid, nn.BCELoss()
# on the flattened probabilities and masks, SGD lr 0.1 momentum 0.9 weight_decay 0.0005, batch size 10,
# val_percent 0.05, images divided by 255, the lines "{progress:.4f} --- loss: {loss:.6f}", "Epoch finished !
# Loss: ...", "Validation Dice Coeff: ..." from eval_net() (prediction > 0.5, dice_coeff against the true mask)
# and "Checkpoint N saved !"). The repository reads the Carvana masks from GIF files, whose palette indices
# are 0 / 1; the poster's masks are 8-bit PNG files, so the loaded masks are 0 / 255 and go into BCELoss
# unchanged. The installed PyTorch refuses BCELoss targets outside [0, 1], so bce_loss() below computes what
# nn.BCELoss() computed in PyTorch 1.x: -(t * log(p) + (1 - t) * log(1 - p)), each log clamped at -100, mean,
# with the gradient (p - t) / max(p (1 - p), 1e-12) of its binary_cross_entropy_backward.
# A 3-level UNet with 16 base channels replaces the 5-level one, 200 synthetic 64 x 64 pictures of a car-like
# blob on a textured floor (with its 0 / 255 mask) replace Carvana, 10 epochs; the image split into two
# squares is left out.
import csv, os, random
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from torch import optim

torch.manual_seed(0); np.random.seed(0); random.seed(0); torch.set_num_threads(1)
rs = np.random.RandomState(0)

# ---------------- data: "data/train/*.jpg" and "data/train_masks/*_mask.png"
S = 64
def make_pair():
    yy, xx = np.mgrid[:S, :S].astype(np.float32)
    floor = 0.35 + 0.15 * rs.rand(3, 1, 1) + 0.08 * np.sin(xx / rs.uniform(2, 5) + rs.rand() * 6)[None] + 0.08 * rs.rand(3, S, S)
    cy, cx = rs.uniform(22, 42), rs.uniform(22, 42); ry, rx = rs.uniform(9, 15), rs.uniform(14, 22)
    body = (((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1.0)
    cabin = (((yy - cy + ry * 0.55) / (ry * 0.5)) ** 2 + ((xx - cx) / (rx * 0.5)) ** 2 <= 1.0)
    m = (body | cabin)
    col = rs.rand(3, 1, 1)
    img = np.where(m[None], col * (0.75 + 0.25 * np.cos(yy / 3.0))[None], floor)
    img = np.clip(img + 0.04 * rs.randn(3, S, S), 0, 1)
    jpg = (img.transpose(1, 2, 0) * 255).astype(np.uint8)                  # HWC uint8, as PIL gives it
    png_mask = (m * 255).astype(np.uint8)                                  # 8-bit PNG mask: 0 / 255
    return jpg, png_mask

FILES = {'%04d' % i: make_pair() for i in range(200)}

def get_ids(files):
    return (f for f in files)

def hwc_to_chw(img):
    return np.transpose(img, axes=[2, 0, 1])

def normalize(x):
    return x / 255

def get_imgs_and_masks(ids, files):
    imgs = (np.array(files[id][0], dtype=np.float32) for id in ids)
    imgs_normalized = map(normalize, map(hwc_to_chw, imgs))
    masks = (np.array(files[id][1], dtype=np.float32) for id in ids)           # Image.open(... '_mask.png')
    return zip(imgs_normalized, masks)

def batch(iterable, batch_size):
    b = []
    for i, t in enumerate(iterable):
        b.append(t)
        if (i + 1) % batch_size == 0:
            yield b
            b = []
    if len(b) > 0:
        yield b

def split_train_val(dataset, val_percent=0.05):
    dataset = list(dataset)
    length = len(dataset)
    n = int(length * val_percent)
    random.shuffle(dataset)
    return {'train': dataset[:-n], 'val': dataset[-n:]}

# ---------------- unet/
class double_conv(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(in_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True),
                                  nn.Conv2d(out_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True))
    def forward(self, x):
        return self.conv(x)

class up(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv = double_conv(in_ch, out_ch)
    def forward(self, x1, x2):
        x1 = F.interpolate(x1, scale_factor=2, mode='bilinear', align_corners=True)
        return self.conv(torch.cat([x2, x1], dim=1))

class UNet(nn.Module):
    def __init__(self, n_channels, n_classes):
        super().__init__()
        self.inc = double_conv(n_channels, 16)
        self.down1 = nn.Sequential(nn.MaxPool2d(2), double_conv(16, 32))
        self.down2 = nn.Sequential(nn.MaxPool2d(2), double_conv(32, 64))
        self.down3 = nn.Sequential(nn.MaxPool2d(2), double_conv(64, 64))
        self.up1 = up(128, 32); self.up2 = up(64, 16); self.up3 = up(32, 16)
        self.outc = nn.Conv2d(16, n_classes, 1)
    def forward(self, x):
        x1 = self.inc(x); x2 = self.down1(x1); x3 = self.down2(x2); x4 = self.down3(x3)
        x = self.up1(x4, x3); x = self.up2(x, x2); x = self.up3(x, x1)
        return torch.sigmoid(self.outc(x))

# ---------------- dice_loss.py / eval.py
def dice_coeff(input, target):
    s = 0.0
    for i, (a, b) in enumerate(zip(input, target)):
        eps = 0.0001
        inter = torch.dot(a.reshape(-1), b.reshape(-1))
        union = torch.sum(a) + torch.sum(b) + eps
        s = s + (2 * inter.float() + eps) / union.float()
    return s / (i + 1)

def eval_net(net, dataset):
    net.eval()
    tot = 0
    with torch.no_grad():
        for i, b in enumerate(dataset):
            img = torch.from_numpy(b[0]).unsqueeze(0)
            true_mask = torch.from_numpy(b[1]).unsqueeze(0)
            mask_pred = net(img)[0]
            mask_pred = (mask_pred > 0.5).float()
            tot += dice_coeff(mask_pred, true_mask).item()
    return tot / (i + 1)

class BCELoss1x(torch.autograd.Function):        # nn.BCELoss() of PyTorch 1.x (no range check on the target)
    @staticmethod
    def forward(ctx, p, t):
        ctx.save_for_backward(p, t)
        return -(t * torch.clamp(torch.log(p), min=-100) + (1 - t) * torch.clamp(torch.log(1 - p), min=-100)).mean()
    @staticmethod
    def backward(ctx, g):                        # binary_cross_entropy_backward: (p - t) / max(p (1 - p), 1e-12)
        p, t = ctx.saved_tensors
        return g * (p - t) / torch.clamp(p * (1 - p), min=1e-12) / p.numel(), None

def bce_loss(p, t):
    return BCELoss1x.apply(p, t)

# ---------------- train.py
def train_net(net, epochs=10, batch_size=10, lr=0.1, val_percent=0.05, save_cp=True):
    ids = get_ids(FILES)
    iddataset = split_train_val(ids, val_percent)
    print('''
    Starting training:
        Epochs: {}
        Batch size: {}
        Learning rate: {}
        Training size: {}
        Validation size: {}
        Checkpoints: {}
        CUDA: {}
    '''.format(epochs, batch_size, lr, len(iddataset['train']), len(iddataset['val']), str(save_cp), 'False'))
    N_train = len(iddataset['train'])
    optimizer = optim.SGD(net.parameters(), lr=lr, momentum=0.9, weight_decay=0.0005)
    criterion = bce_loss
    wr = csv.writer(open('metrics.csv', 'w', newline=''))
    wr.writerow(['epoch', 'step', 'loss', 'epoch_loss', 'val_dice'])
    step = 0
    for epoch in range(epochs):
        print('Starting epoch {}/{}.'.format(epoch + 1, epochs))
        net.train()
        train = get_imgs_and_masks(iddataset['train'], FILES)
        val = get_imgs_and_masks(iddataset['val'], FILES)
        epoch_loss = 0
        for i, b in enumerate(batch(train, batch_size)):
            imgs = torch.from_numpy(np.array([i[0] for i in b]).astype(np.float32))
            true_masks = torch.from_numpy(np.array([i[1] for i in b]))
            masks_pred = net(imgs)
            masks_probs_flat = masks_pred.view(-1)
            true_masks_flat = true_masks.view(-1)
            loss = criterion(masks_probs_flat, true_masks_flat)
            epoch_loss += loss.item()
            print('{0:.4f} --- loss: {1:.6f}'.format(i * batch_size / N_train, loss.item()), flush=True)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            wr.writerow([epoch + 1, step, round(loss.item(), 6), '', ''])
        print('Epoch finished ! Loss: {}'.format(epoch_loss / i))
        val_dice = eval_net(net, val)
        print('Validation Dice Coeff: {}'.format(val_dice))
        wr.writerow([epoch + 1, step, '', round(epoch_loss / i, 6), round(val_dice, 6)])
        if save_cp:
            print('Checkpoint {} saved !'.format(epoch + 1), flush=True)

net = UNet(n_channels=3, n_classes=1)
train_net(net)
