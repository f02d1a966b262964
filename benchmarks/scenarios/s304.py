# pytorch-vdsr style super-resolution in miniature: an 8-layer 3x3 conv network (24 channels) with a
# global residual learns the residual between bicubic-upsampled (x2) low-resolution patches and the HR
# patches, MSE loss, SGD lr 0.1 momentum 0.9 with the VDSR "adjustable gradient clipping"
# clip_grad_norm_(params, clip / lr) -- but with clip = 1e-4 instead of 0.4, i.e. a max grad norm of 0.001.
# Synthetic 24x24 luminance patches made of oriented edges and textures, batch 32, 12 epochs.
# Writes metrics.csv (loss, PSNR of model vs bicubic, mean pre-clip grad norm) and prints per epoch.
import csv
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(304)


def patches(n):
    xs = torch.linspace(-1, 1, 24)
    yy, xx = torch.meshgrid(xs, xs, indexing='ij')
    out = torch.empty(n, 1, 24, 24)
    for i in range(n):
        a = float(torch.rand(1, generator=g)) * math.pi
        f = 3 + 9 * float(torch.rand(1, generator=g))
        edge = torch.sigmoid(20 * (math.cos(a) * xx + math.sin(a) * yy - 0.3 * float(torch.randn(1, generator=g))))
        tex = 0.25 * torch.sin(f * (math.sin(a) * xx - math.cos(a) * yy))
        out[i, 0] = 0.5 * edge + tex + 0.2
    return out.clamp(0, 1)


def degrade(hr):
    lr_img = F.interpolate(hr, scale_factor=0.5, mode='bicubic', align_corners=False)
    return F.interpolate(lr_img, size=hr.shape[-2:], mode='bicubic', align_corners=False)


hr_tr, hr_va = patches(640), patches(256)
in_tr, in_va = degrade(hr_tr), degrade(hr_va)


class VDSR(nn.Module):
    def __init__(self):
        super().__init__()
        layers = [nn.Conv2d(1, 24, 3, padding=1, bias=False), nn.ReLU(inplace=True)]
        for _ in range(6):
            layers += [nn.Conv2d(24, 24, 3, padding=1, bias=False), nn.ReLU(inplace=True)]
        layers += [nn.Conv2d(24, 1, 3, padding=1, bias=False)]
        self.body = nn.Sequential(*layers)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                n = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                m.weight.data.normal_(0, math.sqrt(2. / n))

    def forward(self, x):
        return self.body(x) + x


def psnr(a, b):
    return (10 * torch.log10(1 / F.mse_loss(a, b))).item()


model = VDSR()
lr, clip = 0.1, 1e-4
optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)
criterion = nn.MSELoss(reduction='sum')
bicubic_psnr = psnr(in_va, hr_va)
rows = []
for epoch in range(1, 13):
    model.train()
    p = torch.randperm(len(hr_tr), generator=g); tot, gsum, nb = 0.0, 0.0, 0
    for i in range(0, len(hr_tr), 32):
        idx = p[i:i + 32]
        loss = criterion(model(in_tr[idx]), hr_tr[idx])
        optimizer.zero_grad(); loss.backward()
        gsum += nn.utils.clip_grad_norm_(model.parameters(), clip / lr).item(); nb += 1
        optimizer.step()
        tot += loss.item()
    model.eval()
    with torch.no_grad():
        out = model(in_va)
        vp = psnr(out.clamp(0, 1), hr_va)
    print(f'===> Epoch[{epoch}]: Loss: {tot / nb:.5f}  mean grad norm before clip {gsum / nb:.3f} (max_norm {clip / lr:.4f})  '
          f'val PSNR {vp:.3f} dB (bicubic {bicubic_psnr:.3f} dB)')
    rows.append(dict(epoch=epoch, loss=tot / nb, grad_norm=gsum / nb, val_psnr=vp, bicubic_psnr=bicubic_psnr))
with open('metrics.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
