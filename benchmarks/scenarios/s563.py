# leftthomas/SRGAN issue "RuntimeError: stack expects each tensor to be equal size, but got [1, 22, 22] at entry 0
# and [3, 22, 22] at entry 5" in miniature: train.py of the repository (SRGAN super-resolution, default crop_size 88,
# upscale_factor 4, batch_size 64, shuffle=True, Adam with default settings for G and D, 100 epochs) on the user's own
# training folder. TrainDatasetFromFolder (data_utils.py) opens every file with Image.open() and applies
# RandomCrop(88) + ToTensor() for the high-resolution target and ToPILImage() + Resize(22, BICUBIC) + ToTensor() for
# the low-resolution input, with no convert('RGB'); one picture of the folder is a single-channel (grayscale) PNG, so
# its tensors are [1, 22, 22] and [1, 88, 88] while all others are [3, ...], and the default collate function fails
# with "RuntimeError: stack expects each tensor to be equal size" when the first batch that holds it is assembled.
# The training step is the repository's: D is updated with d_loss = 1 - D(real).mean() + D(fake).mean(), G with
# GeneratorLoss (image MSE + 0.001 adversarial (1 - D(G(z))) + 0.006 perception MSE + 2e-8 TV loss), and the
# progress line "[epoch/100] Loss_D: .. Loss_G: .. D(x): .. D(G(z)): .." (the tqdm description, printed once per
# iteration here). Scaled down: 384 synthetic pictures of 96-128 px (random shapes on gradient backgrounds) are
# written to data/DIV2K_train_HR/ in the working directory instead of DIV2K; the Generator has 32 channels and 2
# residual blocks instead of 64 and 5, the Discriminator is narrower, a fixed random conv net replaces the VGG16
# features of the perception loss; torchvision's transforms are re-implemented with PIL and numpy; num_workers=0;
# the validation half of the epoch is not modelled (it is never reached). metrics.csv has the per-iteration losses.
import csv, math, os
from os import listdir
from os.path import join

import numpy as np
import torch, torch.nn as nn
import torch.optim as optim
from PIL import Image, ImageDraw
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
rng = np.random.RandomState(0)

# ---- the user's training folder ----
os.makedirs('data/DIV2K_train_HR', exist_ok=True)
for i in range(384):
    w, h = rng.randint(96, 129), rng.randint(96, 129)
    c0, c1 = rng.randint(0, 256, 3), rng.randint(0, 256, 3)
    t = np.linspace(0, 1, w)[None, :, None]
    arr = (c0[None, None] * (1 - t) + c1[None, None] * t) * np.ones((h, 1, 1))
    img = Image.fromarray(arr.astype(np.uint8), 'RGB')
    d = ImageDraw.Draw(img)
    for _ in range(rng.randint(3, 8)):
        x0, y0 = rng.randint(0, w - 10), rng.randint(0, h - 10)
        x1, y1 = x0 + rng.randint(8, 50), y0 + rng.randint(8, 50)
        col = tuple(int(v) for v in rng.randint(0, 256, 3))
        (d.ellipse if rng.rand() < 0.5 else d.rectangle)([x0, y0, x1, y1], fill=col)
    if i == 217:
        img = img.convert('L')  # one scanned picture in the folder was saved as an 8-bit grayscale PNG
    img.save(join('data/DIV2K_train_HR', 'img_%04d.png' % i))


# ---- torchvision.transforms stand-ins ----
class RandomCrop:
    def __init__(self, size): self.size = size
    def __call__(self, img):
        w, h = img.size
        i, j = np.random.randint(0, h - self.size + 1), np.random.randint(0, w - self.size + 1)
        return img.crop((j, i, j + self.size, i + self.size))


class ToTensor:
    def __call__(self, img):
        a = np.asarray(img, dtype=np.float32) / 255.0
        if a.ndim == 2:
            a = a[:, :, None]
        return torch.from_numpy(a.transpose(2, 0, 1).copy())


class ToPILImage:
    def __call__(self, t):
        a = (t.numpy().transpose(1, 2, 0) * 255).round().clip(0, 255).astype(np.uint8)
        return Image.fromarray(a[:, :, 0], 'L') if a.shape[2] == 1 else Image.fromarray(a, 'RGB')


class Resize:
    def __init__(self, size, interpolation=Image.BICUBIC): self.size, self.interpolation = size, interpolation
    def __call__(self, img):
        w, h = img.size
        if w <= h:
            return img.resize((self.size, int(self.size * h / w)), self.interpolation)
        return img.resize((int(self.size * w / h), self.size), self.interpolation)


class Compose:
    def __init__(self, ts): self.ts = ts
    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


# ---- data_utils.py ----
def is_image_file(filename):
    return any(filename.endswith(extension) for extension in ['.png', '.jpg', '.jpeg', '.PNG', '.JPG', '.JPEG'])


def calculate_valid_crop_size(crop_size, upscale_factor):
    return crop_size - (crop_size % upscale_factor)


def train_hr_transform(crop_size):
    return Compose([RandomCrop(crop_size), ToTensor()])


def train_lr_transform(crop_size, upscale_factor):
    return Compose([ToPILImage(), Resize(crop_size // upscale_factor, interpolation=Image.BICUBIC), ToTensor()])


class TrainDatasetFromFolder(Dataset):
    def __init__(self, dataset_dir, crop_size, upscale_factor):
        super(TrainDatasetFromFolder, self).__init__()
        self.image_filenames = [join(dataset_dir, x) for x in sorted(listdir(dataset_dir)) if is_image_file(x)]
        crop_size = calculate_valid_crop_size(crop_size, upscale_factor)
        self.hr_transform = train_hr_transform(crop_size)
        self.lr_transform = train_lr_transform(crop_size, upscale_factor)

    def __getitem__(self, index):
        hr_image = self.hr_transform(Image.open(self.image_filenames[index]))
        lr_image = self.lr_transform(hr_image)
        return lr_image, hr_image

    def __len__(self):
        return len(self.image_filenames)


# ---- model.py ----
class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1); self.bn1 = nn.BatchNorm2d(channels)
        self.prelu = nn.PReLU()
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1); self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        r = self.prelu(self.bn1(self.conv1(x)))
        return x + self.bn2(self.conv2(r))


class UpsampleBLock(nn.Module):
    def __init__(self, in_channels, up_scale):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, in_channels * up_scale ** 2, 3, padding=1)
        self.pixel_shuffle = nn.PixelShuffle(up_scale); self.prelu = nn.PReLU()

    def forward(self, x):
        return self.prelu(self.pixel_shuffle(self.conv(x)))


class Generator(nn.Module):
    def __init__(self, scale_factor, ch=32, n_res=2):
        super().__init__()
        n_up = int(math.log(scale_factor, 2))
        self.block1 = nn.Sequential(nn.Conv2d(3, ch, 9, padding=4), nn.PReLU())
        self.res = nn.Sequential(*[ResidualBlock(ch) for _ in range(n_res)])
        self.block7 = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.BatchNorm2d(ch))
        self.block8 = nn.Sequential(*[UpsampleBLock(ch, 2) for _ in range(n_up)], nn.Conv2d(ch, 3, 9, padding=4))

    def forward(self, x):
        b1 = self.block1(x)
        b7 = self.block7(self.res(b1))
        return (torch.tanh(self.block8(b1 + b7)) + 1) / 2


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        def blk(i, o, s): return [nn.Conv2d(i, o, 3, s, 1), nn.BatchNorm2d(o), nn.LeakyReLU(0.2)]
        self.net = nn.Sequential(nn.Conv2d(3, 32, 3, 1, 1), nn.LeakyReLU(0.2), *blk(32, 32, 2), *blk(32, 64, 1),
                                 *blk(64, 64, 2), *blk(64, 128, 2), nn.AdaptiveAvgPool2d(1),
                                 nn.Conv2d(128, 256, 1), nn.LeakyReLU(0.2), nn.Conv2d(256, 1, 1))

    def forward(self, x):
        return torch.sigmoid(self.net(x).view(x.size(0)))


# ---- loss.py ----
class TVLoss(nn.Module):
    def __init__(self, tv_loss_weight=1):
        super().__init__(); self.tv_loss_weight = tv_loss_weight

    def forward(self, x):
        b, _, h, w = x.size()
        count_h = x[:, :, 1:, :].numel() / b; count_w = x[:, :, :, 1:].numel() / b
        h_tv = torch.pow(x[:, :, 1:, :] - x[:, :, :h - 1, :], 2).sum()
        w_tv = torch.pow(x[:, :, :, 1:] - x[:, :, :, :w - 1], 2).sum()
        return self.tv_loss_weight * 2 * (h_tv / count_h + w_tv / count_w) / b


class GeneratorLoss(nn.Module):
    def __init__(self):
        super().__init__()
        loss_network = nn.Sequential(nn.Conv2d(3, 32, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, 1, 1),
                                     nn.ReLU()).eval()
        for param in loss_network.parameters():
            param.requires_grad = False
        self.loss_network = loss_network
        self.mse_loss = nn.MSELoss(); self.tv_loss = TVLoss()

    def forward(self, out_labels, out_images, target_images):
        adversarial_loss = torch.mean(1 - out_labels)
        perception_loss = self.mse_loss(self.loss_network(out_images), self.loss_network(target_images))
        image_loss = self.mse_loss(out_images, target_images)
        tv_loss = self.tv_loss(out_images)
        return image_loss + 0.001 * adversarial_loss + 0.006 * perception_loss + 2e-8 * tv_loss


# ---- train.py ----
CROP_SIZE, UPSCALE_FACTOR, NUM_EPOCHS = 88, 4, 100
train_set = TrainDatasetFromFolder('data/DIV2K_train_HR', crop_size=CROP_SIZE, upscale_factor=UPSCALE_FACTOR)
train_loader = DataLoader(dataset=train_set, num_workers=0, batch_size=64, shuffle=True)

netG = Generator(UPSCALE_FACTOR)
print('# generator parameters:', sum(param.numel() for param in netG.parameters()))
netD = Discriminator()
print('# discriminator parameters:', sum(param.numel() for param in netD.parameters()))
generator_criterion = GeneratorLoss()
optimizerG = optim.Adam(netG.parameters())
optimizerD = optim.Adam(netD.parameters())

out = open('metrics.csv', 'w', newline=''); wr = csv.writer(out)
wr.writerow(['epoch', 'iteration', 'd_loss', 'g_loss', 'd_score', 'g_score'])
out.flush()
it = 0
for epoch in range(1, NUM_EPOCHS + 1):
    running_results = {'batch_sizes': 0, 'd_loss': 0, 'g_loss': 0, 'd_score': 0, 'g_score': 0}
    netG.train(); netD.train()
    for data, target in train_loader:
        batch_size = data.size(0)
        running_results['batch_sizes'] += batch_size
        real_img = target
        z = data
        fake_img = netG(z)

        netD.zero_grad()
        real_out = netD(real_img).mean()
        fake_out = netD(fake_img).mean()
        d_loss = 1 - real_out + fake_out
        d_loss.backward(retain_graph=True)
        optimizerD.step()

        netG.zero_grad()
        fake_img = netG(z)
        fake_out = netD(fake_img).mean()
        g_loss = generator_criterion(fake_out, fake_img, real_img)
        g_loss.backward()
        fake_img = netG(z)
        fake_out = netD(fake_img).mean()
        optimizerG.step()

        running_results['g_loss'] += g_loss.item() * batch_size
        running_results['d_loss'] += d_loss.item() * batch_size
        running_results['d_score'] += real_out.item() * batch_size
        running_results['g_score'] += fake_out.item() * batch_size
        it += 1
        print('[%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f' % (
            epoch, NUM_EPOCHS, running_results['d_loss'] / running_results['batch_sizes'],
            running_results['g_loss'] / running_results['batch_sizes'],
            running_results['d_score'] / running_results['batch_sizes'],
            running_results['g_score'] / running_results['batch_sizes']), flush=True)
        wr.writerow([epoch, it, round(d_loss.item(), 5), round(g_loss.item(), 5), round(real_out.item(), 5),
                     round(fake_out.item(), 5)])
        out.flush()
out.close()
