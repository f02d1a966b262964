# lucidrains/lightweight-gan issue "PIL.UnidentifiedImageError exception handling for corrupted images" in miniature:
# lightweight_gan/lightweight_gan.py and cli.py at commit fce20938 trained on a cats-and-dogs folder. ImageDataset
# collects every *.jpg/*.jpeg/*.png under the folder with Path.glob('**/*.<ext>') and __getitem__ opens each file with
# Image.open(path) and no error handling; the DataLoader shuffles with drop_last=True and is cycled forever; each
# Trainer.train() step accumulates gradient_accumulate_every = 4 batches of batch_size = 10 for the discriminator
# (hinge loss on D's real and fake outputs, gradient penalty gp_weight * (||grad|| - 1)^2 every 4th step) and 4 for
# the generator (gen_hinge_loss = D(G(z)).mean()), Adam(lr = 2e-4, betas = (0.5, 0.9)) for both; train_from_folder
# calls model.print_log() ("G: .. | D: .. | GP: ..") every 50 steps. One file of the folder, Cat/666.jpg, is empty
# (not an image), so the step whose batch contains it raises PIL.UnidentifiedImageError.
# Scaled down for the scenario: image_size 32 instead of 256, a small DCGAN-style generator and discriminator instead
# of the skip-layer-excitation generator and the discriminator with its 32 x 32 output and auxiliary reconstruction,
# no augmentation, no EMA, no checkpoints or sample grids, num_workers = 0, and a folder of 6000 synthetic pictures
# (3000 "cats" and 3000 "dogs": coloured ellipses and boxes on gradients, 40 x 40 JPEGs) written into ./data/PetImages
# in the working directory; metrics.csv has the G and D losses of every step.
import csv
import math
import os
from functools import partial
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image, ImageDraw
from torch.autograd import grad as torch_grad
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)
EXTS = ['jpg', 'jpeg', 'png']


# ---- the user's folder ----------------------------------------------------------------------------------------------

def write_folder(root, n_per_class=3000):
    rng = np.random.RandomState(7)
    for cls in ['Cat', 'Dog']:
        d = Path(root) / cls
        d.mkdir(parents=True, exist_ok=True)
        for i in range(n_per_class):
            p = d / f'{i}.jpg'
            if cls == 'Cat' and i == 666:
                open(p, 'wb').close()  # the corrupted file: 0 bytes
                continue
            base = rng.randint(0, 256, 3)
            g = np.linspace(0, 1, 40)[None, :, None]
            arr = (base[None, None, :] * (0.6 + 0.4 * g)).repeat(40, 0).astype(np.uint8)
            im = Image.fromarray(arr)
            dr = ImageDraw.Draw(im)
            col = tuple(int(c) for c in rng.randint(0, 256, 3))
            x0, y0 = rng.randint(2, 16, 2)
            x1, y1 = x0 + rng.randint(14, 22), y0 + rng.randint(14, 22)
            if cls == 'Cat':
                dr.ellipse([x0, y0, x1, y1], fill=col)
            else:
                dr.rectangle([x0, y0, x1, y1], fill=col)
            im.save(p, quality=90)


# ---- lightweight_gan.py (data) --------------------------------------------------------------------------------------

def exists(val):
    return val is not None


def cycle(iterable):
    while True:
        for i in iterable:
            yield i


def convert_image_to(img_type, image):
    if image.mode != img_type:
        return image.convert(img_type)
    return image


class expand_greyscale(object):
    def __init__(self, transparent):
        self.transparent = transparent

    def __call__(self, tensor):
        channels = tensor.shape[0]
        num_target_channels = 4 if self.transparent else 3
        if channels == num_target_channels:
            return tensor
        if channels == 1:
            return tensor.expand(3, -1, -1)
        raise Exception(f'image with invalid number of channels given {channels}')


def resize_to_minimum_size(min_size, image):
    if max(*image.size) < min_size:
        return image.resize((min_size, min_size))
    return image


class ImageDataset(Dataset):
    def __init__(self, folder, image_size, transparent=False, greyscale=False, aug_prob=0.):
        super().__init__()
        self.folder = folder
        self.image_size = image_size
        self.paths = [p for ext in EXTS for p in Path(f'{folder}').glob(f'**/*.{ext}')]
        assert len(self.paths) > 0, f'No images were found in {folder} for training'
        self.convert_image_fn = partial(convert_image_to, 'RGB')
        self.expand_fn = expand_greyscale(transparent)

    def __len__(self):
        return len(self.paths)

    def transform(self, img):
        # Lambda(convert_image_fn), Lambda(resize_to_minimum_size), Resize(image_size), CenterCrop(image_size),
        # ToTensor(), Lambda(expand_fn), written with PIL and numpy
        img = self.convert_image_fn(img)
        img = resize_to_minimum_size(self.image_size, img)
        img = img.resize((self.image_size, self.image_size), Image.BILINEAR)
        t = torch.from_numpy(np.asarray(img, dtype=np.float32) / 255.).permute(2, 0, 1)
        return self.expand_fn(t)

    def __getitem__(self, index):
        path = self.paths[index]
        img = Image.open(path)
        return self.transform(img)


# ---- models (scaled down) -------------------------------------------------------------------------------------------

class Generator(nn.Module):
    def __init__(self, latent_dim=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.ConvTranspose2d(latent_dim, 128, 4), nn.BatchNorm2d(128), nn.GLU(dim=1),             # 4x4, 64
            nn.Upsample(scale_factor=2), nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.GLU(dim=1),  # 8
            nn.Upsample(scale_factor=2), nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.GLU(dim=1),  # 16
            nn.Upsample(scale_factor=2), nn.Conv2d(16, 3, 3, padding=1), nn.Sigmoid())                        # 32

    def forward(self, z):
        return self.net(z[:, :, None, None])


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 32, 4, 2, 1), nn.LeakyReLU(0.1),
            nn.Conv2d(32, 64, 4, 2, 1), nn.LeakyReLU(0.1),
            nn.Conv2d(64, 128, 4, 2, 1), nn.LeakyReLU(0.1),
            nn.Conv2d(128, 1, 4))

    def forward(self, x):
        return self.net(x).flatten(1)


def gen_hinge_loss(fake, real):
    return fake.mean()


def hinge_loss(real, fake):
    return (F.relu(1 + real) + F.relu(1 - fake)).mean()


class Trainer():
    def __init__(self, image_size=32, batch_size=10, gradient_accumulate_every=4, lr=2e-4, gp_weight=10,
                 latent_dim=64):
        self.image_size = image_size
        self.batch_size = batch_size
        self.gradient_accumulate_every = gradient_accumulate_every
        self.gp_weight = gp_weight
        self.latent_dim = latent_dim
        self.G = Generator(latent_dim)
        self.D = Discriminator()
        self.G_opt = torch.optim.Adam(self.G.parameters(), lr=lr, betas=(0.5, 0.9))
        self.D_opt = torch.optim.Adam(self.D.parameters(), lr=lr, betas=(0.5, 0.9))
        self.steps = 0
        self.d_loss = 0
        self.g_loss = 0
        self.last_gp_loss = None
        self.loader = None

    def set_data_src(self, folder):
        self.dataset = ImageDataset(folder, self.image_size)
        dataloader = DataLoader(self.dataset, num_workers=0, batch_size=self.batch_size, shuffle=True,
                                drop_last=True)
        self.loader = cycle(dataloader)

    def train(self):
        assert exists(self.loader), 'You must first initialize the data source with `.set_data_src(<folder of images>)`'
        self.G.train()
        total_disc_loss = torch.zeros([])
        total_gen_loss = torch.zeros([])
        batch_size = self.batch_size
        apply_gradient_penalty = self.steps % 4 == 0

        # train discriminator
        self.D_opt.zero_grad()
        for i in range(self.gradient_accumulate_every):
            latents = torch.randn(batch_size, self.latent_dim)
            image_batch = next(self.loader)
            image_batch.requires_grad_()
            with torch.no_grad():
                generated_images = self.G(latents)
            fake_output = self.D(generated_images)
            real_output = self.D(image_batch)
            divergence = hinge_loss(real_output, fake_output)
            disc_loss = divergence
            if apply_gradient_penalty:
                gradients = torch_grad(outputs=real_output, inputs=image_batch,
                                       grad_outputs=torch.ones(real_output.size()),
                                       create_graph=True, retain_graph=True, only_inputs=True)[0]
                gradients = gradients.reshape(batch_size, -1)
                gp = self.gp_weight * ((gradients.norm(2, dim=1) - 1) ** 2).mean()
                if not torch.isnan(gp):
                    disc_loss = disc_loss + gp
                    self.last_gp_loss = gp.clone().detach().item()
            disc_loss = disc_loss / self.gradient_accumulate_every
            disc_loss.backward()
            total_disc_loss += divergence.detach()
        self.d_loss = float(total_disc_loss.item() / self.gradient_accumulate_every)
        self.D_opt.step()

        # train generator
        self.G_opt.zero_grad()
        for i in range(self.gradient_accumulate_every):
            latents = torch.randn(batch_size, self.latent_dim)
            generated_images = self.G(latents)
            fake_output = self.D(generated_images)
            loss = gen_hinge_loss(fake_output, None)
            (loss / self.gradient_accumulate_every).backward()
            total_gen_loss += loss.detach()
        self.g_loss = float(total_gen_loss.item() / self.gradient_accumulate_every)
        self.G_opt.step()

        self.steps += 1

    def print_log(self):
        data = [('G', self.g_loss), ('D', self.d_loss), ('GP', self.last_gp_loss)]
        data = [d for d in data if exists(d[1])]
        log = ' | '.join(map(lambda n: f'{n[0]}: {n[1]:.2f}', data))
        print(log, flush=True)


# ---- cli.py ---------------------------------------------------------------------------------------------------------

def train_from_folder(data='./data/PetImages', num_train_steps=1000, seed=42):
    torch.manual_seed(seed)
    np.random.seed(seed)
    model = Trainer()
    model.set_data_src(data)
    print(f'default<{data}>: {len(model.dataset)} images, {num_train_steps} steps', flush=True)
    out = open('metrics.csv', 'w', newline='')
    wr = csv.writer(out)
    wr.writerow(['step', 'g_loss', 'd_loss', 'gp'])
    while model.steps < num_train_steps:
        model.train()
        wr.writerow([model.steps, '%.4f' % model.g_loss, '%.4f' % model.d_loss,
                     '' if model.last_gp_loss is None else '%.4f' % model.last_gp_loss])
        out.flush()
        if model.steps % 50 == 0:
            model.print_log()
    out.close()


if __name__ == '__main__':
    write_folder('./data/PetImages')
    train_from_folder()
