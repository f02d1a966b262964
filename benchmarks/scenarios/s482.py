# ThibaultGROUEIX/AtlasNet (v2 training recipe) in miniature: a PointNet encoder (shared 1-D convs
# 3-64-128-256 with BatchNorm, max pooling to a 256-d shape code) and an AtlasNet decoder with one square
# patch (2-D points sampled in the unit square, concatenated with the code, MLP 258-128-64-3, tanh),
# trained as a point-cloud auto-encoder with the Chamfer distance, Adam lr 1e-3, batch 32, and the
# repository's step schedule scaled to a short run: nepoch 30 with lr_decay_1 = 24 and lr_decay_2 = 28
# (AtlasNet: 150, 120, 140), the learning rate divided by 10 at each. Synthetic shapes (spheres,
# boxes, cylinders, cones of random size, 256 points each; 1280 training and 256 validation shapes)
# replace ShapeNet. Per-iteration and per-epoch lines are printed in AtlasNet's style.
import math, time
import numpy as np
import torch, torch.nn as nn

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
NPTS = 128

def shape(rs):
    k = rs.randint(4); n = NPTS; s = rs.uniform(0.5, 1.0, 3)
    if k == 0:
        p = rs.randn(n, 3); p /= np.linalg.norm(p, axis=1, keepdims=True)
    elif k == 1:
        p = rs.uniform(-1, 1, (n, 3)); ax = rs.randint(3, size=n); p[np.arange(n), ax] = np.sign(rs.randn(n))
    elif k == 2:
        th = rs.uniform(0, 2 * math.pi, n); p = np.stack([np.cos(th), np.sin(th), rs.uniform(-1, 1, n)], 1)
    else:
        h = rs.uniform(0, 1, n); th = rs.uniform(0, 2 * math.pi, n)
        p = np.stack([(1 - h) * np.cos(th), (1 - h) * np.sin(th), 2 * h - 1], 1)
    return (p * s * 0.5).astype(np.float32)
rs = np.random.RandomState(0)
train = torch.tensor(np.stack([shape(rs) for _ in range(512)]))
val = torch.tensor(np.stack([shape(rs) for _ in range(128)]))

class PointNet(nn.Module):
    def __init__(self, nlatent=128):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(3, 32, 1), nn.BatchNorm1d(32), nn.ReLU(),
                                 nn.Conv1d(32, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
                                 nn.Conv1d(64, nlatent, 1), nn.BatchNorm1d(nlatent))
    def forward(self, x):
        return self.net(x.transpose(1, 2)).max(2)[0]
class PatchDeformation(nn.Module):
    def __init__(self, nlatent=128):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(2 + nlatent, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
                                 nn.Conv1d(64, 32, 1), nn.BatchNorm1d(32), nn.ReLU(), nn.Conv1d(32, 3, 1), nn.Tanh())
    def forward(self, latent):
        grid = torch.rand(latent.size(0), 2, NPTS)
        x = torch.cat([grid, latent[:, :, None].expand(-1, -1, NPTS)], 1)
        return self.net(x).transpose(1, 2)
class AtlasNet(nn.Module):
    def __init__(self):
        super().__init__(); self.encoder = PointNet(); self.decoder = PatchDeformation()
    def forward(self, x):
        return self.decoder(self.encoder(x))

def chamfer(a, b):
    d = torch.cdist(a, b) ** 2
    return d.min(2)[0].mean(1) + d.min(1)[0].mean(1)

network = AtlasNet()
lrate, nepoch, lr_decay_1, lr_decay_2, bs = 1e-3, 20, 16, 19, 32
optimizer = torch.optim.Adam(network.parameters(), lr=lrate)
n_iter = len(train) // bs
for epoch in range(nepoch):
    if epoch == lr_decay_1:
        lrate = lrate / 10.0; optimizer = torch.optim.Adam(network.parameters(), lr=lrate)
        print('First learning rate decay %f' % lrate)
    if epoch == lr_decay_2:
        lrate = lrate / 10.0; optimizer = torch.optim.Adam(network.parameters(), lr=lrate)
        print('Second learning rate decay %f' % lrate)
    network.train(); perm = torch.randperm(len(train)); tl = 0.0; t0 = time.time()
    for i in range(n_iter):
        pts = train[perm[i * bs:(i + 1) * bs]]
        optimizer.zero_grad()
        loss_train_total = chamfer(network(pts), pts).mean()
        loss_train_total.backward(); optimizer.step(); tl += loss_train_total.item()
        if i % 8 == 0:
            print('[%d: %d/%d] train loss:  %f ' % (epoch, i, n_iter, loss_train_total.item()), flush=True)
    network.eval()
    with torch.no_grad():
        vl = chamfer(network(val), val).mean().item()
    print('[%d] train chamfer %f | val chamfer %f | lr %g | %.1fs' % (epoch, tl / n_iter, vl, lrate, time.time() - t0), flush=True)
