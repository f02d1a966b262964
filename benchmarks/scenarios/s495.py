# sanghyun-son/EDSR-PyTorch (src/main.py, trainer.py, loss/__init__.py, utility.checkpoint of 2019) in miniature: a
# first run trains the EDSR baseline (x2) with --loss 1*L1 and saves, as checkpoint.save does, the model and the loss
# module's state and its per-epoch log (loss.pt, loss_log.pt, a tensor with one column per entry of Loss.loss) into
# experiment/<save>/; a second run is started with --load <save> --resume -1 and a second loss term, --loss
# 1*L1+1*MSE. Loss.__init__ then has three entries (L1, MSE and the 'Total' added when there is more than one term),
# Loss.load restores the old one-column log, and the first Trainer.train() calls loss.start_log(), which
# concatenates torch.zeros(1, len(self.loss)) to it. Model, data and log lines as in the repository's trainer
# ("Making model...", "Preparing loss function:", "1.000 * L1", "[Epoch N]\tLearning rate: ...",
# "[n/N]\t[L1: ...]\t...+...s", "Continue from epoch N..."); scaled down: 2 residual blocks of 16 features, HR
# patches 24 x 24, 20 batches an epoch, 2 epochs in the first run; synthetic smooth colour images replace DIV2K.
import csv, math, time
from decimal import Decimal
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(1); np.random.seed(1); torch.set_num_threads(1)
scale, rgb_range, n_colors, n_resblocks, n_feats, res_scale = 2, 255, 3, 2, 16, 1
patch_size, batch_size, lr, betas, epsilon = 24, 16, 1e-4, (0.9, 0.999), 1e-8
test_every, print_every, skip_threshold = 20, 10, 1e8

def make_image(rs, size):
    yy, xx = np.mgrid[0:size, 0:size] / size
    img = np.zeros((3, size, size))
    for c in range(3):
        img[c] += rs.uniform(60, 190)
        for _ in range(4):
            cx, cy, r, a = rs.rand(), rs.rand(), rs.uniform(0.05, 0.3), rs.uniform(-90, 90)
            img[c] += a * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
        f, th, a = rs.uniform(2, 9), rs.uniform(0, np.pi), rs.uniform(10, 40)
        img[c] += a * np.sin(2 * np.pi * f * (xx * np.cos(th) + yy * np.sin(th)) + rs.uniform(0, 6.3))
    return np.clip(img, 0, 255).astype(np.float32)

def downsample(hr):
    return F.interpolate(hr, scale_factor=1 / scale, mode='bicubic', align_corners=False, antialias=True).clamp(0, 255)

rs = np.random.RandomState(0)
train_hr = torch.tensor(np.stack([make_image(rs, 96) for _ in range(160)]))
train_lr = downsample(train_hr)
test_hr = torch.tensor(np.stack([make_image(rs, 48) for _ in range(5)]))
test_lr = downsample(test_hr)

def get_patch(i, rs):
    lp = patch_size // scale
    ix, iy = rs.randint(0, 48 - lp + 1), rs.randint(0, 48 - lp + 1)
    lr_ = train_lr[i, :, iy:iy + lp, ix:ix + lp]; hr_ = train_hr[i, :, iy * scale:(iy + lp) * scale, ix * scale:(ix + lp) * scale]
    if rs.rand() < 0.5: lr_, hr_ = lr_.flip(2), hr_.flip(2)
    if rs.rand() < 0.5: lr_, hr_ = lr_.flip(1), hr_.flip(1)
    return lr_, hr_

def default_conv(in_channels, out_channels, kernel_size, bias=True):
    return nn.Conv2d(in_channels, out_channels, kernel_size, padding=(kernel_size // 2), bias=bias)

class MeanShift(nn.Conv2d):
    def __init__(self, rgb_range, rgb_mean, rgb_std, sign=-1):
        super().__init__(3, 3, kernel_size=1)
        std = torch.Tensor(rgb_std)
        self.weight.data = torch.eye(3).view(3, 3, 1, 1) / std.view(3, 1, 1, 1)
        self.bias.data = sign * rgb_range * torch.Tensor(rgb_mean) / std
        for p in self.parameters():
            p.requires_grad = False

class ResBlock(nn.Module):
    def __init__(self, conv, n_feats, kernel_size, bias=True, act=nn.ReLU(True), res_scale=1):
        super().__init__()
        self.body = nn.Sequential(conv(n_feats, n_feats, kernel_size, bias=bias), act, conv(n_feats, n_feats, kernel_size, bias=bias))
        self.res_scale = res_scale
    def forward(self, x):
        res = self.body(x).mul(self.res_scale)
        res += x
        return res

class Upsampler(nn.Sequential):
    def __init__(self, conv, scale, n_feats):
        super().__init__(conv(n_feats, 4 * n_feats, 3), nn.PixelShuffle(2))

class EDSR(nn.Module):
    def __init__(self, conv=default_conv):
        super().__init__()
        kernel_size = 3
        rgb_mean = (0.4488, 0.4371, 0.4040); rgb_std = (1.0, 1.0, 1.0)
        self.sub_mean = MeanShift(rgb_range, rgb_mean, rgb_std)
        self.head = nn.Sequential(conv(n_colors, n_feats, kernel_size))
        m_body = [ResBlock(conv, n_feats, kernel_size, act=nn.ReLU(True), res_scale=res_scale) for _ in range(n_resblocks)]
        m_body.append(conv(n_feats, n_feats, kernel_size))
        self.body = nn.Sequential(*m_body)
        self.tail = nn.Sequential(Upsampler(conv, scale, n_feats), conv(n_feats, n_colors, kernel_size))
        self.add_mean = MeanShift(rgb_range, rgb_mean, rgb_std, 1)
    def forward(self, x):
        x = self.sub_mean(x)
        x = self.head(x)
        res = self.body(x)
        res += x
        x = self.tail(res)
        x = self.add_mean(x)
        return x

import os

class Loss(nn.Module):
    def __init__(self, loss_arg, load_dir=''):
        super().__init__()
        print('Preparing loss function:')
        self.loss = []
        self.loss_module = nn.ModuleList()
        for loss in loss_arg.split('+'):
            weight, loss_type = loss.split('*')
            if loss_type == 'MSE': loss_function = nn.MSELoss()
            elif loss_type == 'L1': loss_function = nn.L1Loss()
            self.loss.append({'type': loss_type, 'weight': float(weight), 'function': loss_function})
        if len(self.loss) > 1:
            self.loss.append({'type': 'Total', 'weight': 0, 'function': None})
        for l in self.loss:
            if l['function'] is not None:
                print('{:.3f} * {}'.format(l['weight'], l['type']))
                self.loss_module.append(l['function'])
        self.log = torch.Tensor()
        if load_dir != '': self.load(load_dir)
    def forward(self, sr, hr):
        losses = []
        for i, l in enumerate(self.loss):
            if l['function'] is not None:
                loss = l['function'](sr, hr)
                effective_loss = l['weight'] * loss
                losses.append(effective_loss)
                self.log[-1, i] += effective_loss.item()
        loss_sum = sum(losses)
        if len(self.loss) > 1:
            self.log[-1, -1] += loss_sum.item()
        return loss_sum
    def start_log(self):
        self.log = torch.cat((self.log, torch.zeros(1, len(self.loss))))
    def end_log(self, n_batches):
        self.log[-1].div_(n_batches)
    def display_loss(self, batch):
        n_samples = batch + 1
        return ''.join('[{}: {:.4f}]'.format(l['type'], c / n_samples) for l, c in zip(self.loss, self.log[-1]))
    def save(self, apath):
        torch.save(self.state_dict(), os.path.join(apath, 'loss.pt'))
        torch.save(self.log, os.path.join(apath, 'loss_log.pt'))
    def load(self, apath):
        self.load_state_dict(torch.load(os.path.join(apath, 'loss.pt')))
        self.log = torch.load(os.path.join(apath, 'loss_log.pt'))

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['run', 'epoch', 'batch', 'loss']); f.flush()
brs = np.random.RandomState(2)

def run(name, loss_arg, epochs, load=''):
    apath = os.path.join('experiment', name if load == '' else load)
    os.makedirs(apath, exist_ok=True)
    print('Making model...')
    model = EDSR()
    start = 0
    if load != '':
        model.load_state_dict(torch.load(os.path.join(apath, 'model', 'model_latest.pt')))
        start = len(torch.load(os.path.join(apath, 'psnr_log.pt')))
        print('Continue from epoch {}...'.format(start))
    loss = Loss(loss_arg, apath if load != '' else '')
    optimizer = torch.optim.Adam(filter(lambda x: x.requires_grad, model.parameters()), lr=lr, betas=betas, eps=epsilon)
    psnr_log = torch.load(os.path.join(apath, 'psnr_log.pt')) if load != '' else torch.Tensor()
    for epoch in range(start + 1, start + epochs + 1):
        print('[Epoch {}]\tLearning rate: {:.2e}'.format(epoch, Decimal(lr)), flush=True)
        loss.start_log()
        model.train()
        t_model = 0.0; t0 = time.time()
        for batch in range(test_every):
            idx = brs.randint(0, len(train_hr), batch_size)
            pairs = [get_patch(i, brs) for i in idx]
            lr_b, hr_b = torch.stack([p[0] for p in pairs]), torch.stack([p[1] for p in pairs])
            optimizer.zero_grad()
            l = loss(model(lr_b), hr_b)
            l.backward(); optimizer.step()
            wr.writerow([name, epoch, (epoch - 1) * test_every + batch + 1, l.item()]); f.flush()
            if (batch + 1) % print_every == 0:
                print('[{}/{}]\t{}\t{:.1f}+{:.1f}s'.format((batch + 1) * batch_size, test_every * batch_size,
                      loss.display_loss(batch), time.time() - t0, 0.0), flush=True)
                t0 = time.time()
        loss.end_log(test_every)
        model.eval()
        with torch.no_grad():
            sr = model(test_lr).clamp(0, 255).round()
            mse = ((sr - test_hr) / rgb_range)[..., 8:-8, 8:-8].pow(2).mean().item()
        psnr_log = torch.cat((psnr_log, torch.tensor([-10 * math.log10(mse)])))
        print('\nEvaluation:')
        print('[{} x{}]\tPSNR: {:.3f} (Best: {:.3f} @epoch {})'.format('Set5', scale, psnr_log[-1].item(),
              psnr_log.max().item(), psnr_log.argmax().item() + 1), flush=True)
        os.makedirs(os.path.join(apath, 'model'), exist_ok=True)
        torch.save(model.state_dict(), os.path.join(apath, 'model', 'model_latest.pt'))
        loss.save(apath)
        torch.save(psnr_log, os.path.join(apath, 'psnr_log.pt'))

# python main.py --model EDSR --scale 2 --save edsr_baseline_x2 --loss 1*L1 --epochs 2
run('edsr_baseline_x2', '1*L1', 2)
# python main.py --model EDSR --scale 2 --load edsr_baseline_x2 --resume -1 --loss 1*L1+1*MSE
run('edsr_baseline_x2', '1*L1+1*MSE', 2, load='edsr_baseline_x2')
f.close()
