# taesungp/contrastive-unpaired-translation issue "Seems to not work with --input_nc 1 (grayscale)" (57) in
# miniature: train.py of CUT run with --input_nc 1 --output_nc 1 for grayscale-to-grayscale translation. The
# networks are built for one channel (ResnetGenerator's first layer is ReflectionPad2d(3) + Conv2d(input_nc, ngf=64,
# 7)), but data/unaligned_dataset.py opens every picture with Image.open(path).convert('RGB') and calls
# get_transform(modified_opt) without grayscale=True, so the loader hands the model 3-channel tensors; the first
# iteration's model.data_dependent_initialize(data) runs the generator and stops with "RuntimeError: Given
# groups=1, weight of size [64, 1, 7, 7], expected input[...] to have 1 channels, but got 3 channels instead".
# Kept from the repository: the option printout, "dataset [UnalignedDataset] was created", "model [CUTModel] was
# created", "The number of training images = N", the training loop (data_dependent_initialize on the first batch,
# then set_input / optimize_parameters, the "(epoch: .., iters: .., time: .., data: ..) G_GAN: .. D_real: ..
# D_fake: .. G: .. NCE: .. NCE_Y: .." line), the CUT model (ResnetGenerator, PatchGAN NLayerDiscriminator, lsgan
# loss, PatchSampleF MLP on the encoder layers, PatchNCE loss with nce_T 0.07, nce_idt, lambda_NCE 1, Adam lr
# 0.0002 betas (0.5, 0.999)). Scaled / chosen here: 60 + 60 synthetic grayscale pictures (domain A: soft blobs,
# domain B: hard-edged rings), load_size 72 and crop_size 64 instead of 286 / 256, batch_size 2, 2 resnet blocks
# instead of 9, 64 patches per layer instead of 256, print_freq 10. metrics.csv is written per iteration (it stays
# empty here, because the run stops before the first update).
import csv
import random
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image, ImageDraw, ImageFilter

torch.manual_seed(0)
np.random.seed(0)
random.seed(0)
torch.set_num_threads(1)


# ---------------------------------------------------------------- options (train.py --input_nc 1 --output_nc 1)
class Opt:
    dataroot = './datasets/gray2gray'
    name = 'gray_CUT'
    model = 'cut'
    CUT_mode = 'CUT'
    input_nc = 1
    output_nc = 1
    ngf = 64
    ndf = 64
    netG = 'resnet_2blocks'
    netD = 'basic'
    n_layers_D = 3
    normG = 'instance'
    normD = 'instance'
    batch_size = 2
    load_size = 72
    crop_size = 64
    preprocess = 'resize_and_crop'
    no_flip = False
    lr = 0.0002
    beta1 = 0.5
    beta2 = 0.999
    gan_mode = 'lsgan'
    lambda_GAN = 1.0
    lambda_NCE = 1.0
    nce_idt = True
    nce_layers = '0,4,8,12,16'
    nce_T = 0.07
    num_patches = 64
    netF = 'mlp_sample'
    netF_nc = 256
    n_epochs = 2
    n_epochs_decay = 0
    epoch_count = 1
    print_freq = 10
    serial_batches = False
    phase = 'train'
    isTrain = True


opt = Opt()
print('----------------- Options ---------------')
for k in sorted(k for k in vars(Opt) if not k.startswith('_')):
    print('{:>25}: {:<30}'.format(k, str(getattr(opt, k))))
print('----------------- End -------------------')


# ---------------------------------------------------------------- synthetic grayscale folders trainA / trainB
def picture_A(rng):
    im = Image.new('L', (80, 80), int(rng.integers(20, 60)))
    d = ImageDraw.Draw(im)
    for _ in range(rng.integers(3, 7)):
        x, y = rng.uniform(0, 80, 2)
        r = rng.uniform(6, 16)
        d.ellipse([x - r, y - r, x + r, y + r], fill=int(rng.integers(120, 230)))
    return im.filter(ImageFilter.GaussianBlur(3))


def picture_B(rng):
    im = Image.new('L', (80, 80), int(rng.integers(180, 230)))
    d = ImageDraw.Draw(im)
    for _ in range(rng.integers(3, 7)):
        x, y = rng.uniform(0, 80, 2)
        r = rng.uniform(6, 16)
        d.ellipse([x - r, y - r, x + r, y + r], outline=int(rng.integers(0, 60)), width=3)
    return im


rng = np.random.default_rng(4)
FILES_A = [picture_A(rng) for _ in range(60)]  # grayscale ('L') pictures, as the user's
FILES_B = [picture_B(rng) for _ in range(60)]


# ---------------------------------------------------------------- data/base_dataset.get_transform, UnalignedDataset
def get_transform(opt, grayscale=False):
    def t(img):
        if grayscale:
            img = img.convert('L')  # transforms.Grayscale(1)
        img = img.resize((opt.load_size, opt.load_size), Image.BICUBIC)
        x0 = random.randint(0, opt.load_size - opt.crop_size)
        y0 = random.randint(0, opt.load_size - opt.crop_size)
        img = img.crop((x0, y0, x0 + opt.crop_size, y0 + opt.crop_size))
        if not opt.no_flip and random.random() < 0.5:
            img = img.transpose(Image.FLIP_LEFT_RIGHT)
        a = np.asarray(img, dtype=np.float32) / 255.0
        if a.ndim == 2:
            a = a[:, :, None]
        x = torch.from_numpy(a.transpose(2, 0, 1).copy())
        return (x - 0.5) / 0.5  # Normalize((0.5,), (0.5,)) or ((0.5,0.5,0.5), (0.5,0.5,0.5))
    return t


class UnalignedDataset(torch.utils.data.Dataset):
    def __init__(self, opt):
        self.opt = opt
        self.A_paths, self.B_paths = FILES_A, FILES_B
        self.A_size, self.B_size = len(self.A_paths), len(self.B_paths)

    def __getitem__(self, index):
        A_img = self.A_paths[index % self.A_size].convert('RGB')
        B_img = self.B_paths[random.randint(0, self.B_size - 1)].convert('RGB')
        transform = get_transform(self.opt)
        return {'A': transform(A_img), 'B': transform(B_img)}

    def __len__(self):
        return max(self.A_size, self.B_size)


dataset = torch.utils.data.DataLoader(UnalignedDataset(opt), batch_size=opt.batch_size, shuffle=True,
                                      num_workers=0, drop_last=True)
print('dataset [UnalignedDataset] was created')


# ---------------------------------------------------------------- networks (models/networks.py, smaller)
class ResnetBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.conv_block = nn.Sequential(
            nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, 3), nn.InstanceNorm2d(dim), nn.ReLU(True),
            nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, 3), nn.InstanceNorm2d(dim))

    def forward(self, x):
        return x + self.conv_block(x)


class ResnetGenerator(nn.Module):
    def __init__(self, input_nc, output_nc, ngf=64, n_blocks=2):
        super().__init__()
        model = [nn.ReflectionPad2d(3), nn.Conv2d(input_nc, ngf, 7), nn.InstanceNorm2d(ngf), nn.ReLU(True)]
        for i in range(2):
            m = 2 ** i
            model += [nn.Conv2d(ngf * m, ngf * m * 2, 3, 2, 1), nn.InstanceNorm2d(ngf * m * 2), nn.ReLU(True)]
        for i in range(n_blocks):
            model += [ResnetBlock(ngf * 4)]
        for i in range(2):
            m = 2 ** (2 - i)
            model += [nn.ConvTranspose2d(ngf * m, ngf * m // 2, 3, 2, 1, output_padding=1),
                      nn.InstanceNorm2d(ngf * m // 2), nn.ReLU(True)]
        model += [nn.ReflectionPad2d(3), nn.Conv2d(ngf, output_nc, 7), nn.Tanh()]
        self.model = nn.Sequential(*model)

    def forward(self, x, layers=[], encode_only=False):
        if encode_only:
            feats, feat = [], x
            for layer_id, layer in enumerate(self.model):
                feat = layer(feat)
                if layer_id in layers:
                    feats.append(feat)
                if layer_id == layers[-1]:
                    return feats
        return self.model(x)


class NLayerDiscriminator(nn.Module):
    def __init__(self, input_nc, ndf=64, n_layers=3):
        super().__init__()
        seq = [nn.Conv2d(input_nc, ndf, 4, 2, 1), nn.LeakyReLU(0.2, True)]
        m = 1
        for n in range(1, n_layers):
            mp, m = m, min(2 ** n, 8)
            seq += [nn.Conv2d(ndf * mp, ndf * m, 4, 2, 1), nn.InstanceNorm2d(ndf * m), nn.LeakyReLU(0.2, True)]
        mp, m = m, min(2 ** n_layers, 8)
        seq += [nn.Conv2d(ndf * mp, ndf * m, 4, 1, 1), nn.InstanceNorm2d(ndf * m), nn.LeakyReLU(0.2, True),
                nn.Conv2d(ndf * m, 1, 4, 1, 1)]
        self.model = nn.Sequential(*seq)

    def forward(self, x):
        return self.model(x)


class PatchSampleF(nn.Module):
    def __init__(self, nc=256):
        super().__init__()
        self.nc = nc
        self.mlp_init = False

    def create_mlp(self, feats):
        for mlp_id, feat in enumerate(feats):
            setattr(self, 'mlp_%d' % mlp_id, nn.Sequential(nn.Linear(feat.shape[1], self.nc), nn.ReLU(),
                                                         nn.Linear(self.nc, self.nc)))
        self.mlp_init = True

    def forward(self, feats, num_patches=64, patch_ids=None):
        if not self.mlp_init:
            self.create_mlp(feats)
        return_ids, return_feats = [], []
        for feat_id, feat in enumerate(feats):
            B, H, W = feat.shape[0], feat.shape[2], feat.shape[3]
            feat_reshape = feat.permute(0, 2, 3, 1).flatten(1, 2)
            if patch_ids is not None:
                patch_id = patch_ids[feat_id]
            else:
                patch_id = torch.randperm(feat_reshape.shape[1])[:min(num_patches, H * W)]
            x_sample = feat_reshape[:, patch_id, :].flatten(0, 1)
            x_sample = getattr(self, 'mlp_%d' % feat_id)(x_sample)
            return_ids.append(patch_id)
            return_feats.append(F.normalize(x_sample, dim=1))
        return return_feats, return_ids


def patch_nce_loss(feat_q, feat_k, batch_size, nce_T):
    num_patches = feat_q.shape[0]
    feat_k = feat_k.detach()
    l_pos = (feat_q * feat_k).sum(1, keepdim=True)
    feat_q = feat_q.view(batch_size, -1, feat_q.shape[1])
    feat_k = feat_k.view(batch_size, -1, feat_k.shape[1])
    npatches = feat_q.size(1)
    l_neg = torch.bmm(feat_q, feat_k.transpose(2, 1))
    diag = torch.eye(npatches, dtype=torch.bool)[None, :, :]
    l_neg = l_neg.masked_fill(diag, -10.0).view(-1, npatches)
    out = torch.cat((l_pos, l_neg), dim=1) / nce_T
    return F.cross_entropy(out, torch.zeros(out.size(0), dtype=torch.long), reduction='none')


# ---------------------------------------------------------------- models/cut_model.py
class CUTModel:
    def __init__(self, opt):
        self.opt = opt
        self.nce_layers = [int(i) for i in opt.nce_layers.split(',') if int(i) < 12]  # layers of the smaller netG
        self.netG = ResnetGenerator(opt.input_nc, opt.output_nc, opt.ngf, n_blocks=2)
        self.netF = PatchSampleF(opt.netF_nc)
        self.netD = NLayerDiscriminator(opt.output_nc, opt.ndf, opt.n_layers_D)
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=opt.lr, betas=(opt.beta1, opt.beta2))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=opt.lr, betas=(opt.beta1, opt.beta2))

    def set_input(self, data):
        self.real_A, self.real_B = data['A'], data['B']

    def data_dependent_initialize(self, data):
        bs_per_gpu = data['A'].size(0)
        self.set_input(data)
        self.real_A = self.real_A[:bs_per_gpu]
        self.real_B = self.real_B[:bs_per_gpu]
        self.forward()
        self.compute_D_loss().backward()
        self.compute_G_loss().backward()
        self.optimizer_F = torch.optim.Adam(self.netF.parameters(), lr=self.opt.lr,
                                            betas=(self.opt.beta1, self.opt.beta2))

    def forward(self):
        self.real = torch.cat((self.real_A, self.real_B), dim=0) if self.opt.nce_idt else self.real_A
        if random.random() < 0.5:
            self.real = torch.flip(self.real, [3])
        self.fake = self.netG(self.real)
        self.fake_B = self.fake[:self.real_A.size(0)]
        if self.opt.nce_idt:
            self.idt_B = self.fake[self.real_A.size(0):]

    def compute_D_loss(self):
        pred_fake = self.netD(self.fake_B.detach())
        self.loss_D_fake = F.mse_loss(pred_fake, torch.zeros_like(pred_fake))
        pred_real = self.netD(self.real_B)
        self.loss_D_real = F.mse_loss(pred_real, torch.ones_like(pred_real))
        self.loss_D = (self.loss_D_fake + self.loss_D_real) * 0.5
        return self.loss_D

    def calculate_NCE_loss(self, src, tgt):
        feat_q = self.netG(tgt, self.nce_layers, encode_only=True)
        feat_k = self.netG(src, self.nce_layers, encode_only=True)
        feat_k_pool, sample_ids = self.netF(feat_k, self.opt.num_patches, None)
        feat_q_pool, _ = self.netF(feat_q, self.opt.num_patches, sample_ids)
        total = 0.0
        for f_q, f_k in zip(feat_q_pool, feat_k_pool):
            total += patch_nce_loss(f_q, f_k, src.size(0), self.opt.nce_T).mean() * self.opt.lambda_NCE
        return total / len(self.nce_layers)

    def compute_G_loss(self):
        pred_fake = self.netD(self.fake_B)
        self.loss_G_GAN = F.mse_loss(pred_fake, torch.ones_like(pred_fake)) * self.opt.lambda_GAN
        self.loss_NCE = self.calculate_NCE_loss(self.real_A, self.fake_B)
        self.loss_NCE_Y = self.calculate_NCE_loss(self.real_B, self.idt_B)
        self.loss_G = self.loss_G_GAN + (self.loss_NCE + self.loss_NCE_Y) * 0.5
        return self.loss_G

    def optimize_parameters(self):
        self.forward()
        self.optimizer_D.zero_grad()
        self.compute_D_loss().backward()
        self.optimizer_D.step()
        self.optimizer_G.zero_grad()
        self.optimizer_F.zero_grad()
        self.compute_G_loss().backward()
        self.optimizer_G.step()
        self.optimizer_F.step()

    def get_current_losses(self):
        return {'G_GAN': self.loss_G_GAN.item(), 'D_real': self.loss_D_real.item(),
                'D_fake': self.loss_D_fake.item(), 'G': self.loss_G.item(), 'NCE': self.loss_NCE.item(),
                'NCE_Y': self.loss_NCE_Y.item()}


model = CUTModel(opt)
print('model [CUTModel] was created')
dataset_size = len(dataset.dataset)
print('The number of training images = %d' % dataset_size)

f = open('metrics.csv', 'w', newline='')
w = csv.writer(f)
w.writerow(['epoch', 'iters', 'G_GAN', 'D_real', 'D_fake', 'G', 'NCE', 'NCE_Y'])
f.flush()
total_iters = 0
for epoch in range(opt.epoch_count, opt.n_epochs + opt.n_epochs_decay + 1):
    epoch_start_time = time.time()
    iter_data_time = time.time()
    epoch_iter = 0
    for i, data in enumerate(dataset):
        iter_start_time = time.time()
        t_data = iter_start_time - iter_data_time
        batch_size = data['A'].size(0)
        total_iters += batch_size
        epoch_iter += batch_size
        if epoch == opt.epoch_count and i == 0:
            model.data_dependent_initialize(data)
        model.set_input(data)
        model.optimize_parameters()
        losses = model.get_current_losses()
        w.writerow([epoch, total_iters] + ['%.4f' % v for v in losses.values()])
        f.flush()
        if total_iters % opt.print_freq == 0:
            t_comp = (time.time() - iter_start_time) / batch_size
            message = '(epoch: %d, iters: %d, time: %.3f, data: %.3f) ' % (epoch, epoch_iter, t_comp, t_data)
            message += ' '.join('%s: %.3f' % (k, v) for k, v in losses.items())
            print(message, flush=True)
        iter_data_time = time.time()
    print('End of epoch %d / %d \t Time Taken: %d sec' % (epoch, opt.n_epochs + opt.n_epochs_decay,
                                                           time.time() - epoch_start_time))
f.close()
