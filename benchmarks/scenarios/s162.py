"""Population disaggregation: a small "scale net" predicts people-per-building for each grid cell
from building-footprint features; cell predictions are summed to the census-district total,
which is the only supervision."""
import csv
import torch
import torch.nn as nn

torch.manual_seed(258)
torch.set_num_threads(1)

N_DIST, CELLS, F = 300, 40, 12

g = torch.Generator().manual_seed(0)
feats = torch.rand(N_DIST, CELLS, F, generator=g) * torch.tensor([5, 3, 1, 1, 2, 1, 1, 4, 1, 1, 1, 2.])
buildings = (torch.rand(N_DIST, CELLS, generator=g) * 20).round()
true_dens = 1.5 + feats[..., 0] * 0.6 + feats[..., 7] * 0.3
census = (buildings * true_dens).sum(1) * (1 + 0.05 * torch.randn(N_DIST, generator=g))
train_idx, val_idx = torch.arange(0, 240), torch.arange(240, 300)


class ScaleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(F, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.body(x)).squeeze(-1)


net = ScaleNet()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)


def district_loss(idx):
    dens = net(feats[idx])
    pred = (dens * buildings[idx]).sum(1)
    return ((torch.log1p(pred) - torch.log1p(census[idx])) ** 2).mean(), dens


with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "val_loss", "mean_pred_density"])
    step = 0
    for epoch in range(60):
        perm = train_idx[torch.randperm(len(train_idx))]
        for i in range(0, len(perm), 16):
            loss, dens = district_loss(perm[i:i + 16])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
        with torch.no_grad():
            vloss, vd = district_loss(val_idx)
        w.writerow([step, epoch, f"{loss.item():.5f}", f"{vloss.item():.5f}", f"{vd.mean().item():.4f}"])
        if epoch % 5 == 0:
            print("ep %3d | loss %.4f | val %.4f | mean density %.3f" % (epoch, loss.item(), vloss.item(), vd.mean().item()))
