# Variational autoencoder in miniature, after kvfrans/variational-autoencoder main.py (conv recognition network that
# outputs z_mean and z_stddev directly, 20-d latent, deconv generation network with a sigmoid output, Adam 1e-3,
# batch 100): synthetic 16x16 binary "glyph" tiles (8 stroke templates, random shifts and 3% pixel flips, inside a printed 1-pixel frame),
# 6000 training images, 20 epochs. The losses are written as in the original: generation loss
# -sum(x*log(1e-8 + y) + (1-x)*log(1e-8 + 1 - y)) and latent loss 0.5*sum(mu^2 + sd^2 - log(sd^2) - 1).
# Prints "epoch N: genloss ... latloss ..." (mean over the epoch) like the original and writes metrics.csv.
import csv
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(336)
temps = torch.zeros(8, 20, 20)
for t in range(8):
    for _ in range(3):  # three random strokes per template
        r0, c0 = torch.randint(3, 17, (2,), generator=g).tolist()
        dr, dc = torch.randint(-1, 2, (2,), generator=g).tolist()
        for s in range(8):
            r, c = min(max(r0 + dr * s, 0), 18), min(max(c0 + dc * s, 0), 18)
            temps[t, r:r + 2, c:c + 2] = 1.0


def glyphs(n):
    y = torch.randint(0, 8, (n,), generator=g)
    dx, dy = torch.randint(0, 5, (n,), generator=g), torch.randint(0, 5, (n,), generator=g)
    x = torch.stack([temps[y[k], dy[k]:dy[k] + 16, dx[k]:dx[k] + 16] for k in range(n)])
    flip = torch.rand(n, 16, 16, generator=g) < 0.03
    x = torch.where(flip, 1 - x, x)
    x[:, 0, :], x[:, -1, :], x[:, :, 0], x[:, :, -1] = 1.0, 1.0, 1.0, 1.0  # the scanned tile's printed frame
    return x.flatten(1)


X = glyphs(6000)


class VAE(nn.Module):
    def __init__(self, n_z=20):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(16, 32, 4, 2, 1), nn.LeakyReLU(0.2), nn.Flatten())
        self.w_mean, self.w_stddev = nn.Linear(32 * 16, n_z), nn.Linear(32 * 16, n_z)
        self.z_matrix = nn.Linear(n_z, 32 * 16)
        self.dec = nn.Sequential(nn.ReLU(), nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(16, 1, 4, 2, 1))

    def forward(self, x):
        h = self.enc(x.view(-1, 1, 16, 16))
        mean, stddev = self.w_mean(h), self.w_stddev(h)
        z = mean + stddev * torch.randn_like(stddev)
        y = torch.sigmoid(self.dec(self.z_matrix(z).view(-1, 32, 4, 4))).flatten(1)
        return y, mean, stddev


model = VAE()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
rows = []
for epoch in range(20):
    perm = torch.randperm(len(X), generator=g)
    G, L = [], []
    for k in range(0, len(X), 100):
        x = X[perm[k:k + 100]]
        y, mean, stddev = model(x)
        gen_loss = -torch.sum(x * torch.log(1e-8 + y) + (1 - x) * torch.log(1e-8 + 1 - y), 1)
        lat_loss = 0.5 * torch.sum(mean ** 2 + stddev ** 2 - torch.log(stddev ** 2) - 1, 1)
        cost = (gen_loss + lat_loss).mean()
        opt.zero_grad(); cost.backward(); opt.step()
        G.append(gen_loss.mean().item()); L.append(lat_loss.mean().item())
    r = dict(epoch=epoch, genloss=sum(G) / len(G), latloss=sum(L) / len(L), sat_frac=(y.detach() == 1.0).float().mean().item())
    rows.append(r)
    print("epoch %d: genloss %f latloss %f" % (epoch, r['genloss'], r['latloss']))
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
