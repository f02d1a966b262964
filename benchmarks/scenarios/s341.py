# Self-supervised blind-spot denoising in miniature, after a Blind2Unblind / Noise2Void-style setup on microscopy-like
# images with Poisson noise (noisy = poisson(peak * x) / peak): synthetic 32x32 clean images of overlapping smooth
# blobs and bars with intensities in [0, 1], peak 10 (strong shot noise), 480 noisy training patches and 64 noisy
# validation images whose clean versions are kept only for evaluation. A small fully convolutional net (5 conv
# layers, 48 channels, residual output) is trained without clean targets: 6% of the pixels are masked and replaced
# by a random neighbour, and the loss is the MSE between the prediction and the noisy value at the masked pixels.
# Adam lr 1e-3, batch 16, 16 epochs of 30 steps. Prints the self-supervised training loss, the same loss on the
# noisy validation images and the validation PSNR against the clean images (noisy-input PSNR for reference) per
# epoch, writes metrics.csv.
import csv
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(341)
PEAK = 10.0


def clean_images(n):
    yy, xx = torch.meshgrid(torch.arange(32).float(), torch.arange(32).float(), indexing='ij')
    out = torch.full((n, 32, 32), 0.1)
    for k in range(n):
        for _ in range(int(torch.randint(3, 7, (1,), generator=g))):
            cy, cx = (torch.rand(2, generator=g) * 32).tolist()
            r = 2 + 5 * float(torch.rand(1, generator=g))
            a = 0.2 + 0.6 * float(torch.rand(1, generator=g))
            if torch.rand(1, generator=g) < 0.5:
                out[k] += a * torch.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))
            else:
                out[k] += a * ((yy - cy).abs() < r / 2).float() * ((xx - cx).abs() < 2 * r).float()
    return out.clamp(0, 1)[:, None]


def noisy(x):
    return torch.poisson(PEAK * x, generator=g) / PEAK


Xtr = noisy(clean_images(480))
Cva = clean_images(64)
Xva = noisy(Cva)


class Net(nn.Module):
    def __init__(self, c=48):
        super().__init__()
        layers, d = [], 1
        for _ in range(4):
            layers += [nn.Conv2d(d, c, 3, padding=1), nn.LeakyReLU(0.1)]; d = c
        self.body = nn.Sequential(*layers, nn.Conv2d(c, 1, 3, padding=1))

    def forward(self, x):
        return x + self.body(x)


def blind_spot_batch(x, frac=0.06):
    mask = torch.rand(x.shape, generator=g) < frac
    dy, dx = torch.randint(-2, 3, (2,), generator=g).tolist()
    if dy == 0 and dx == 0:
        dx = 1
    shifted = torch.roll(x, shifts=(dy, dx), dims=(2, 3))
    return torch.where(mask, shifted, x), mask


def psnr(a, b):
    return 10 * math.log10(1.0 / F.mse_loss(a, b).item())


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
print(f"noisy validation input PSNR {psnr(Xva, Cva):.2f} dB")
rows = []
for epoch in range(1, 17):
    model.train()
    ls = []
    for step in range(30):
        x = Xtr[torch.randint(0, len(Xtr), (16,), generator=g)]
        inp, mask = blind_spot_batch(x)
        loss = ((model(inp) - x) ** 2)[mask].mean()
        opt.zero_grad(); loss.backward(); opt.step()
        ls.append(loss.item())
    model.eval()
    with torch.no_grad():
        inp, mask = blind_spot_batch(Xva)
        vloss = ((model(inp) - Xva) ** 2)[mask].mean().item()
        vp = psnr(model(Xva).clamp(0, 1), Cva)
    r = dict(epoch=epoch, train_loss=sum(ls) / len(ls), val_loss=vloss, val_psnr=vp)
    rows.append(r)
    print(f"epoch {epoch:2d} | train loss {r['train_loss']:.5f} | val loss {vloss:.5f} | val PSNR {vp:.2f} dB")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
