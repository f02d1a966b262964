# leftthomas/SRGAN issue "RuntimeError: stack expects each tensor to be equal size, but got [1, 22, 22] at entry 0 and
# [3, 22, 22] at entry 5" in miniature: train.py and data_utils.py of that repository (SRGAN super-resolution,
# --crop_size 88, --upscale_factor 4, --num_epochs 100) trained on the user's own image folder. TrainDatasetFromFolder
# opens every file with Image.open() and applies train_hr_transform = Compose([RandomCrop(crop_size), ToTensor()]) and
# train_lr_transform = Compose([ToPILImage(), Resize(crop_size // upscale_factor, BICUBIC), ToTensor()]) without any
# convert('RGB'), so a greyscale picture in the folder becomes a 1 x 22 x 22 low-resolution tensor while the colour
# pictures give 3 x 22 x 22, and DataLoader(batch_size=64, shuffle=True) cannot stack them: the first batch fails in
# default_collate before any update. Generator(UPSCALE_FACTOR) (conv 9x9 64 + PReLU, residual blocks, PixelShuffle
# upsampling, tanh), Discriminator (strided conv blocks with LeakyReLU and BatchNorm, global pooling, sigmoid),
# GeneratorLoss (image MSE + 0.001 adversarial + 0.006 perception + 2e-8 TV), optim.Adam with default settings, the
# "# generator parameters:" / "# discriminator parameters:" lines and the per-batch line
# "[epoch/NUM_EPOCHS] Loss_D: .. Loss_G: .. D(x): .. D(G(z)): ..". Scaled down: 5 residual blocks of 32 channels
# instead of 64, a smaller discriminator, a fixed random frozen conv stack instead of the pretrained VGG16 features in
# the perception loss (nothing can be downloaded), torchvision's transforms re-implemented with PIL and numpy, and
# num_workers=0. The "folder" is 120 synthetic 128 x 128 photographs generated in memory (smooth colour fields,
# edges and texture); 7 of them are saved in greyscale ("L") mode as some downloaded pictures are. metrics.csv
# would get one row per batch; the run ends with the collate error.
import csv, io, random
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from PIL import Image
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0); np.random.seed(0); random.seed(0); torch.set_num_threads(1)

CROP_SIZE, UPSCALE_FACTOR, NUM_EPOCHS = 88, 4, 100


# ---------------------------------------------------------------- the user's image folder (in memory)
def make_picture(r, grey):
    yy, xx = np.mgrid[0:128, 0:128] / 128.0
    img = np.zeros((128, 128, 3))
    for c in range(3):
        a, b, ph = r.uniform(1, 6, 3)
        img[..., c] = 0.5 + 0.3 * np.sin(a * xx * 3 + b * yy * 2 + ph) + 0.1 * r.randn(128, 128)
    for _ in range(r.randint(2, 6)):                          # a few objects with hard edges
        cx, cy, rad = r.uniform(0, 1), r.uniform(0, 1), r.uniform(0.05, 0.25)
        img[(xx - cx) ** 2 + (yy - cy) ** 2 < rad ** 2] = r.uniform(0, 1, 3)
    pil = Image.fromarray((np.clip(img, 0, 1) * 255).astype(np.uint8), 'RGB')
    buf = io.BytesIO()
    (pil.convert('L') if grey else pil).save(buf, format='PNG')
    return buf.getvalue()


rs = np.random.RandomState(3)
grey_ids = set(rs.choice(120, 7, replace=False).tolist())
FOLDER = {'img_%03d.png' % i: make_picture(rs, i in grey_ids) for i in range(120)}


# ---------------------------------------------------------------- data_utils.py
def is_image_file(filename):
    return any(filename.endswith(extension) for extension in ['.png', '.jpg', '.jpeg', '.PNG', '.JPG', '.JPEG'])


def calculate_valid_crop_size(crop_size, upscale_factor):
    return crop_size - (crop_size % upscale_factor)


def to_tensor(pil):                                           # torchvision ToTensor: H x W (x C) uint8 -> C x H x W
    a = np.asarray(pil, dtype=np.float32) / 255.0
    if a.ndim == 2:
        a = a[:, :, None]
    return torch.from_numpy(a.transpose(2, 0, 1).copy())


def to_pil(t):                                                # torchvision ToPILImage
    a = (t.numpy().transpose(1, 2, 0) * 255).round().astype(np.uint8)
    return Image.fromarray(a[:, :, 0], 'L') if a.shape[2] == 1 else Image.fromarray(a, 'RGB')


def train_hr_transform(crop_size):
    def f(img):                                               # RandomCrop(crop_size), ToTensor()
        w, h = img.size
        x, y = random.randint(0, w - crop_size), random.randint(0, h - crop_size)
        return to_tensor(img.crop((x, y, x + crop_size, y + crop_size)))
    return f


def train_lr_transform(crop_size, upscale_factor):
    def f(t):                                                 # ToPILImage(), Resize(.., BICUBIC), ToTensor()
        s = crop_size // upscale_factor
        return to_tensor(to_pil(t).resize((s, s), Image.BICUBIC))
    return f


class TrainDatasetFromFolder(Dataset):
    def __init__(self, dataset_dir, crop_size, upscale_factor):
        super(TrainDatasetFromFolder, self).__init__()
        self.image_dir = dataset_dir
        self.image_filenames = [x for x in sorted(dataset_dir) if is_image_file(x)]
        crop_size = calculate_valid_crop_size(crop_size, upscale_factor)
        self.hr_transform = train_hr_transform(crop_size)
        self.lr_transform = train_lr_transform(crop_size, upscale_factor)

    def __getitem__(self, index):
        hr_image = self.hr_transform(Image.open(io.BytesIO(self.image_dir[self.image_filenames[index]])))
        lr_image = self.lr_transform(hr_image)
        return lr_image, hr_image

    def __len__(self):
        return len(self.image_filenames)


# ---------------------------------------------------------------- model.py / loss.py
class ResidualBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1); self.bn1 = nn.BatchNorm2d(c); self.prelu = nn.PReLU()
        self.conv2 = nn.Conv2d(c, c, 3, padding=1); self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        return x + self.bn2(self.conv2(self.prelu(self.bn1(self.conv1(x)))))


class UpsampleBLock(nn.Module):
    def __init__(self, c, up):
        super().__init__()
        self.conv = nn.Conv2d(c, c * up ** 2, 3, padding=1); self.ps = nn.PixelShuffle(up); self.prelu = nn.PReLU()

    def forward(self, x):
        return self.prelu(self.ps(self.conv(x)))


class Generator(nn.Module):
    def __init__(self, scale_factor, c=32, n_res=5):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, c, 9, padding=4), nn.PReLU())
        self.res = nn.Sequential(*[ResidualBlock(c) for _ in range(n_res)])
        self.block7 = nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c))
        n_up = int(np.log2(scale_factor))
        self.block8 = nn.Sequential(*[UpsampleBLock(c, 2) for _ in range(n_up)], nn.Conv2d(c, 3, 9, padding=4))

    def forward(self, x):
        b1 = self.block1(x)
        b8 = self.block8(b1 + self.block7(self.res(b1)))
        return (torch.tanh(b8) + 1) / 2


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        layers, cin = [nn.Conv2d(3, 32, 3, padding=1), nn.LeakyReLU(0.2)], 32
        for cout, s in [(32, 2), (64, 1), (64, 2), (128, 1), (128, 2)]:
            layers += [nn.Conv2d(cin, cout, 3, stride=s, padding=1), nn.BatchNorm2d(cout), nn.LeakyReLU(0.2)]
            cin = cout
        layers += [nn.AdaptiveAvgPool2d(1), nn.Conv2d(cin, 256, 1), nn.LeakyReLU(0.2), nn.Conv2d(256, 1, 1)]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return torch.sigmoid(self.net(x).view(x.size(0)))


class GeneratorLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss_network = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1),
                                          nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1), nn.ReLU())
        for p in self.loss_network.parameters():
            p.requires_grad = False
        self.mse_loss = nn.MSELoss()

    def forward(self, out_labels, out_images, target_images):
        adversarial_loss = torch.mean(1 - out_labels)
        perception_loss = self.mse_loss(self.loss_network(out_images), self.loss_network(target_images))
        image_loss = self.mse_loss(out_images, target_images)
        tv = (torch.pow(out_images[:, :, 1:, :] - out_images[:, :, :-1, :], 2).sum()
              + torch.pow(out_images[:, :, :, 1:] - out_images[:, :, :, :-1], 2).sum()) / out_images.size(0)
        return image_loss + 0.001 * adversarial_loss + 0.006 * perception_loss + 2e-8 * tv


# ---------------------------------------------------------------- train.py
if __name__ == '__main__':
    train_set = TrainDatasetFromFolder(FOLDER, crop_size=CROP_SIZE, upscale_factor=UPSCALE_FACTOR)
    train_loader = DataLoader(dataset=train_set, num_workers=0, batch_size=64, shuffle=True)

    netG = Generator(UPSCALE_FACTOR)
    print('# generator parameters:', sum(param.numel() for param in netG.parameters()))
    netD = Discriminator()
    print('# discriminator parameters:', sum(param.numel() for param in netD.parameters()))
    generator_criterion = GeneratorLoss()
    optimizerG = torch.optim.Adam(netG.parameters())
    optimizerD = torch.optim.Adam(netD.parameters())

    f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
    wr.writerow(['epoch', 'batch', 'd_loss', 'g_loss', 'd_score', 'g_score']); f.flush()
    for epoch in range(1, NUM_EPOCHS + 1):
        running = {'batch_sizes': 0, 'd_loss': 0, 'g_loss': 0, 'd_score': 0, 'g_score': 0}
        netG.train(); netD.train()
        for it, (data, target) in enumerate(train_loader):
            batch_size = data.size(0)
            running['batch_sizes'] += batch_size
            real_img, z = target, data
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
            optimizerG.step()

            running['g_loss'] += g_loss.item() * batch_size
            running['d_loss'] += d_loss.item() * batch_size
            running['d_score'] += real_out.item() * batch_size
            running['g_score'] += fake_out.item() * batch_size
            n = running['batch_sizes']
            print('[%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f' % (
                epoch, NUM_EPOCHS, running['d_loss'] / n, running['g_loss'] / n, running['d_score'] / n,
                running['g_score'] / n))
            wr.writerow([epoch, it, d_loss.item(), g_loss.item(), real_out.item(), fake_out.item()]); f.flush()
