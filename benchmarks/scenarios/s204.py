# Surface-normal estimation with per-pixel uncertainty (normal + concentration kappa), angular NLL loss (UG_NLL-style)
import csv
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(7)
torch.set_num_threads(1)

S, N = 20, 600
g = torch.Generator().manual_seed(2)
yy, xx = torch.meshgrid(torch.linspace(-1, 1, S), torch.linspace(-1, 1, S), indexing="ij")
a = torch.randn(N, 4, 1, 1, generator=g)
height = a[:, 0] * xx ** 2 + a[:, 1] * yy ** 2 + a[:, 2] * xx * yy + 0.5 * a[:, 3] * torch.sin(3 * xx)
dzdx = torch.gradient(height, dim=2)[0] * S / 2
dzdy = torch.gradient(height, dim=1)[0] * S / 2
norm_gt = F.normalize(torch.stack([-dzdx, -dzdy, torch.ones_like(dzdx)], 1), dim=1)
img = torch.stack([height, torch.cos(2 * height), torch.sin(2 * height)], 1) + 0.05 * torch.randn(N, 3, S, S, generator=g)
tr, va = slice(0, 500), slice(500, 600)


class NNET(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(32, 4, 3, padding=1))

    def forward(self, x):
        out = self.body(x)
        normal = F.normalize(out[:, :3], dim=1)
        kappa = F.elu(out[:, 3:]) + 1.01
        return torch.cat([normal, kappa], 1)


def ug_nll(pred, gt):
    kappa = pred[:, 3]
    dot = torch.cosine_similarity(pred[:, :3], gt, dim=1).clamp(-0.999, 0.999)
    angle = torch.acos(dot)
    loss = -torch.log(kappa ** 2 + 1) + kappa * angle + torch.log(1 + torch.exp(-kappa * math.pi))
    return loss.mean(), torch.rad2deg(angle).mean()


model = NNET()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=1e-2)
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "val_loss", "val_mean_angle_deg"])
    step = 0
    for epoch in range(12):
        perm = torch.arange(500)[torch.randperm(500)]
        for i in range(0, 500, 10):
            b = perm[i:i + 10]
            loss, _ = ug_nll(model(img[b]), norm_gt[b])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            w.writerow([step, epoch, f"{loss.item():.4f}", "", ""])
        with torch.no_grad():
            vl, ang = ug_nll(model(img[va]), norm_gt[va])
        w.writerow([step, epoch, f"{loss.item():.4f}", f"{vl.item():.4f}", f"{ang.item():.2f}"])
        print(f"epoch {epoch} | train loss {loss.item():.4f} | val loss {vl.item():.4f} | val mean angular error {ang.item():.2f} deg")
