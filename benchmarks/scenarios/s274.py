# Arbitrary-scale image super-resolution in miniature (local implicit image function, SLIIF-style):
# a conv encoder gives a feature map of the 16x16 low-resolution image; for each query coordinate the
# nearest feature, its relative offset and the cell size go through several MLP branches (RESMLPS) and
# the branch outputs are averaged into an RGB residual on top of the bilinear upsample. As in the
# report's RESMLPS.forward, the branch outputs are collected via .cpu().detach().numpy() and rebuilt
# with torch.tensor(...), so no gradient reaches the MLP branches or the encoder. L1 loss,
# Adam 1e-4 -> 1e-3 here, batch 16, 2304 sampled query pixels per image, 12 epochs; PSNR on x2 validation.
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(31)

def make_hr(n):
    yy, xx = torch.meshgrid(torch.linspace(0, 1, 32), torch.linspace(0, 1, 32), indexing='ij')
    imgs = []
    for _ in range(n):
        f = 2 + 6 * torch.rand(3, generator=g); ph = 6.28 * torch.rand(3, generator=g)
        ang = 3.14 * torch.rand(1, generator=g)
        u = xx * torch.cos(ang) + yy * torch.sin(ang)
        img = torch.stack([0.5 + 0.4 * torch.sin(f[c] * 6.28 * u + ph[c]) for c in range(3)])
        imgs.append(img)
    return torch.stack(imgs)
HR = make_hr(480)
LR = F.interpolate(HR, size=16, mode='bicubic', align_corners=False)
tr_hr, tr_lr, va_hr, va_lr = HR[:400], LR[:400], HR[400:], LR[400:]
coords = torch.stack(torch.meshgrid(torch.linspace(-1 + 1 / 32, 1 - 1 / 32, 32),
                                    torch.linspace(-1 + 1 / 32, 1 - 1 / 32, 32), indexing='ij'), -1).view(-1, 2)

class MLP(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(i, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, o))
    def forward(self, x, cood):
        return self.net(torch.cat([x, cood], -1))

class RESMLPS(nn.Module):
    def __init__(self, i, o, n=3):
        super().__init__()
        self.mlps = nn.ModuleList([MLP(i, o) for _ in range(n)])
        self.fuse = nn.Linear(o, o)
    def forward(self, x, cood_out):
        res_list = [mlp(x, cood_out).cpu().detach().numpy() for mlp in self.mlps]
        mlp_res = torch.tensor(np.array(res_list))
        return self.fuse(mlp_res.mean(0))

class SLIIF(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1))
        self.imnet = RESMLPS(32 + 4, 3)
    def forward(self, lr, coord):
        feat = self.encoder(lr)
        q = F.grid_sample(feat, coord.flip(-1).unsqueeze(1), mode='nearest', align_corners=False)[:, :, 0].permute(0, 2, 1)
        cell = torch.full_like(coord, 2 / 32)
        rel = coord - torch.round((coord + 1) * 8 - 0.5).clamp(0, 15).add(0.5).div(8).sub(1)
        base = F.grid_sample(lr, coord.flip(-1).unsqueeze(1), mode='bilinear', padding_mode='border', align_corners=False)[:, :, 0].permute(0, 2, 1)
        return base + self.imnet(q, torch.cat([rel * 8, cell * 16], -1))

def psnr(a, b):
    return 10 * math.log10(1.0 / F.mse_loss(a.clamp(0, 1), b).item())

model = SLIIF()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(1, 13):
    model.train(); tot, nb = 0.0, 0
    perm = torch.randperm(400)
    for i in range(0, 400, 16):
        idx = perm[i:i + 16]
        sel = torch.randint(0, 1024, (256,))
        c = coords[sel].unsqueeze(0).expand(len(idx), -1, -1)
        gt = tr_hr[idx].flatten(2).permute(0, 2, 1)[:, sel]
        loss = F.l1_loss(model(tr_lr[idx], c), gt)
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item(); nb += 1
    model.eval()
    with torch.no_grad():
        c = coords.unsqueeze(0).expand(80, -1, -1)
        pred = model(va_lr, c)
        gt = va_hr.flatten(2).permute(0, 2, 1)
        base = F.grid_sample(va_lr, c.flip(-1).unsqueeze(1), mode='bilinear', padding_mode='border', align_corners=False)[:, :, 0].permute(0, 2, 1)
        enc_w = model.encoder[0].weight.abs().mean().item()
    print('epoch {}, train: loss={:.4f}, val: psnr={:.4f} (bilinear {:.4f}), encoder |w| {:.6f}'.format(
        epoch, tot / nb, psnr(pred, gt), psnr(base, gt), enc_w))
