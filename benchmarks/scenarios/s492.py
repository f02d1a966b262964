# sanghyun-son/EDSR-PyTorch (src/main.py, trainer.py, loss/__init__.py, model/edsr.py, model/common.py of mid 2018) in
# miniature: the EDSR baseline trained for x2 super-resolution with the command-line option "--precision half", which
# puts the model (model.half()) and every training batch (Trainer.prepare: tensor.half()) in 16-bit floats. As in the
# repository: MeanShift with the DIV2K RGB mean and rgb_range 255, head conv, residual blocks (conv-ReLU-conv, res_scale
# 1), body conv, pixel-shuffle upsampler, tail conv, add_mean; loss '1*L1', ADAM (betas (0.9, 0.999), epsilon 1e-8,
# lr 1e-4) over the parameters that require grad, batch 16, skip_threshold 1e8 with error_last = 1e8 in the first epoch
# (a batch whose loss is not below skip_threshold * error_last is not back-propagated: "Skip this batch N! (Loss: ...)"),
# the "[Epoch N]\tLearning rate: ..." line, "[n/N]\t[L1: ...]\t...+...s" every print_every batches and the
# "[Set5 x2]\tPSNR: ... (Best: ... @epoch ...)" evaluation line. Scaled down: 2 residual blocks of 16 features (the
# baseline has 16 of 64), HR patches 24 x 24 (192 in the repository), 40 batches an epoch (test_every 1000), 4 epochs,
# print_every 10. Synthetic smooth colour images (random blobs and stripes, 0-255) replace DIV2K and Set5; the LR input
# is the bicubic down-sampled HR image.
import csv, math, time
from decimal import Decimal
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(1); np.random.seed(1); torch.set_num_threads(1)
precision = 'half'
scale, rgb_range, n_colors, n_resblocks, n_feats, res_scale = 2, 255, 3, 2, 16, 1
patch_size, batch_size, lr, betas, epsilon = 24, 16, 1e-4, (0.9, 0.999), 1e-8
test_every, epochs, print_every, skip_threshold = 40, 4, 10, 1e8

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

print('Making model...')
model = EDSR()
if precision == 'half': model.half()
print('Preparing loss function:')
print('1.000 * L1')
l1 = nn.L1Loss()
if precision == 'half': l1.half()
trainable = filter(lambda x: x.requires_grad, model.parameters())
optimizer = torch.optim.Adam(trainable, lr=lr, betas=betas, eps=epsilon)

def prepare(*args):
    def _prepare(tensor):
        if precision == 'half': tensor = tensor.half()
        return tensor
    return [_prepare(a) for a in args]

def quantize(img):
    pixel_range = 255 / rgb_range
    return img.mul(pixel_range).clamp(0, 255).round().div(pixel_range)

def calc_psnr(sr, hr):
    diff = (sr.float() - hr.float()) / rgb_range
    shave = scale + 6
    valid = diff[..., shave:-shave, shave:-shave]
    mse = valid.pow(2).mean().item()
    return -10 * math.log10(mse) if mse == mse and mse > 0 else float('nan')

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'batch', 'l1', 'skipped', 'psnr']); f.flush()
error_last = 1e8
psnr_log = []
brs = np.random.RandomState(2)
for epoch in range(1, epochs + 1):
    print('[Epoch {}]\tLearning rate: {:.2e}'.format(epoch, Decimal(lr)), flush=True)
    model.train()
    log_l1 = 0.0
    t_model = 0.0; t_data = 0.0; t0 = time.time()
    for batch in range(test_every):
        idx = brs.randint(0, len(train_hr), batch_size)
        pairs = [get_patch(i, brs) for i in idx]
        lr_b, hr_b = prepare(torch.stack([p[0] for p in pairs]), torch.stack([p[1] for p in pairs]))
        t1 = time.time(); t_data += t1 - t0
        optimizer.zero_grad()
        sr = model(lr_b)
        loss = l1(sr, hr_b)
        log_l1 += loss.item()
        skipped = 0
        if loss.item() < skip_threshold * error_last:
            loss.backward()
            optimizer.step()
        else:
            skipped = 1
            print('Skip this batch {}! (Loss: {})'.format(batch + 1, loss.item()), flush=True)
        t0 = time.time(); t_model += t0 - t1
        wr.writerow([epoch, (epoch - 1) * test_every + batch + 1, loss.item(), skipped, '']); f.flush()
        if (batch + 1) % print_every == 0:
            print('[{}/{}]\t{}\t{:.1f}+{:.1f}s'.format((batch + 1) * batch_size, test_every * batch_size,
                  '[L1: {:.4f}]'.format(log_l1 / (batch + 1)), t_model, t_data), flush=True)
            t_model = 0.0; t_data = 0.0
    error_last = log_l1 / test_every
    print('\nEvaluation:')
    model.eval()
    with torch.no_grad():
        psnr = 0.0
        for i in range(len(test_hr)):
            lr_t, hr_t = prepare(test_lr[i:i + 1], test_hr[i:i + 1])
            sr = quantize(model(lr_t))
            psnr += calc_psnr(sr, hr_t)
        psnr /= len(test_hr)
    psnr_log.append(psnr)
    best = max(range(len(psnr_log)), key=lambda k: psnr_log[k] if psnr_log[k] == psnr_log[k] else -1e9)
    print('[{} x{}]\tPSNR: {:.3f} (Best: {:.3f} @epoch {})'.format('Set5', scale, psnr, psnr_log[best], best + 1), flush=True)
    wr.writerow([epoch, epoch * test_every, '', '', psnr]); f.flush()
f.close()
