# CALC (convolutional autoencoder for loop closure) in miniature: a small conv encoder-decoder receives a
# randomly warped, re-lit and noised view of a synthetic 32x32 "place" image and regresses the HOG-like
# descriptor (4x4 cells x 8 orientation bins, L2-normalised per cell) of the un-warped image; loss = sum of
# squared errors per image (averaged over the batch), Adam 1e-3, batch 32, 15 epochs
# x 40 iterations. Every epoch the bottleneck descriptor is evaluated for place recognition: recall@1 when
# matching a second warped, noisy view of 100 held-out places against the first. Prints a line per epoch; writes
# metrics.csv.
import csv
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(323)


def places(n):
    x = torch.randn(n, 1, 4, 4, generator=g)
    return F.interpolate(x, size=32, mode='bilinear', align_corners=False)


def warp(x):
    n = len(x)
    theta = torch.zeros(n, 2, 3)
    ang = (torch.rand(n, generator=g) - 0.5) * 0.2
    sc = 1 + (torch.rand(n, generator=g) - 0.5) * 0.1
    theta[:, 0, 0] = sc * torch.cos(ang); theta[:, 0, 1] = -torch.sin(ang)
    theta[:, 1, 0] = torch.sin(ang); theta[:, 1, 1] = sc * torch.cos(ang)
    theta[:, :, 2] = (torch.rand(n, 2, generator=g) - 0.5) * 0.1
    grid = F.affine_grid(theta, x.shape, align_corners=False)
    y = F.grid_sample(x, grid, padding_mode='border', align_corners=False)
    return y * (0.7 + 0.6 * torch.rand(n, 1, 1, 1, generator=g)) + 0.15 * torch.randn(x.shape, generator=g)


def hog(x):
    gx = x[:, :, :, 2:] - x[:, :, :, :-2]; gy = x[:, :, 2:, :] - x[:, :, :-2, :]
    gx, gy = gx[:, :, 1:-1, :], gy[:, :, :, 1:-1]
    mag, ori = (gx ** 2 + gy ** 2).sqrt(), (torch.atan2(gy, gx) % math.pi)
    b = (ori / math.pi * 8).long().clamp(max=7)
    h = F.one_hot(b, 8).float() * mag.unsqueeze(-1)                      # N 1 30 30 8
    h = F.adaptive_avg_pool2d(h[:, 0].permute(0, 3, 1, 2), 4)            # N 8 4 4
    h = h / (h.norm(dim=1, keepdim=True) + 1e-6)
    return h.flatten(1) * 3.0


class CALC(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 32, 5, stride=2, padding=2), nn.ReLU(),
                                 nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
                                 nn.Conv2d(32, 16, 3, stride=2, padding=1), nn.ReLU())
        self.dec = nn.Sequential(nn.Flatten(), nn.Linear(16 * 4 * 4, 256), nn.ReLU(), nn.Linear(256, 128))

    def forward(self, x):
        z = self.enc(x)
        return self.dec(z), z.flatten(1)


model = CALC()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
test = places(100)
v1 = warp(test) + 0.6 * torch.randn(test.shape, generator=g)
v2 = warp(test) + 0.6 * torch.randn(test.shape, generator=g)
rows = []
for epoch in range(1, 16):
    tl = 0.0
    for it in range(40):
        x = places(32)
        pred, _ = model(warp(x))
        loss = ((pred - hog(x)) ** 2).sum(1).mean()
        opt.zero_grad(); loss.backward(); opt.step(); tl += loss.item()
    with torch.no_grad():
        d1 = F.normalize(model(v1)[1], dim=1); d2 = F.normalize(model(v2)[1], dim=1)
        r1 = ((d2 @ d1.T).argmax(1) == torch.arange(100)).float().mean().item()
        vl = ((model(v1)[0] - hog(test)) ** 2).sum(1).mean().item()
    rows.append(dict(epoch=epoch, train_loss=tl / 40, val_loss=vl, place_recall_at_1=r1))
    print(f'epoch {epoch:2d} | train loss {tl / 40:.3f} | val loss {vl:.3f} | place recognition recall@1 {r1:.2f}')
with open('metrics.csv', 'w', newline='') as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0]))
    wr.writeheader(); wr.writerows(rows)
