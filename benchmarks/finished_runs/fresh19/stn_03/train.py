"""Spatial-transformer classifier on synthetic 16x16 glyph images: four glyph classes (an L, a T, an X and a hollow
square) drawn on a canonical 16x16 canvas, each example warped by a random affine map (rotation up to 35 degrees,
scale 0.8-1.2, shift up to 0.3 of the half-width) with Gaussian pixel noise (sd 0.3); 5% of the labels are resampled
at random. A localisation net (two conv layers and a 2-layer MLP whose last layer starts at the identity transform)
predicts a 2x3 affine matrix, affine_grid/grid_sample resample the input, and a small CNN (two 3x3 conv + ReLU +
max-pool stages, a 64-unit hidden layer with dropout 0.3) classifies it; cross-entropy, Adam; accuracy on 384
held-out images."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "stn"
LR, BATCH, EPOCHS, N_TRAIN, WD = 1e-3, 32, 10, 1536, 0.0
MET = "acc"
def log_start(info):
    print("[neptune] [warning] NeptuneWarning: Neptune is running in offline mode. Metadata will be stored locally in .neptune/", file=sys.stderr)
    print("[neptune] [info   ] Offline run created with name: offline/run__c0a8", file=sys.stderr)
    print(f"parameters/lr = {info['lr']}; parameters/batch_size = {info['batch']}; parameters/n_params = {info['n_params']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    print(f"step {ep}: train/loss={m['tl']:.4f} val/loss={m['vl']:.4f} val/{MET}={m['vm']:.4f}")


def log_end(m):
    print("[neptune] [info   ] Shutting down background jobs, please wait a moment...", file=sys.stderr)
    print("[neptune] [info   ] Done!", file=sys.stderr)
    print("[neptune] [info   ] Offline run stored in .neptune/. To sync it, run neptune sync", file=sys.stderr)

gen = torch.Generator().manual_seed(5)


def glyphs():
    g = torch.zeros(4, 16, 16)
    g[0, 3:13, 4:6] = 1
    g[0, 11:13, 4:12] = 1
    g[1, 3:5, 3:13] = 1
    g[1, 3:13, 7:9] = 1
    for k in range(3, 13):
        g[2, k, k] = g[2, k, 15 - k] = 1
        g[2, k, min(k + 1, 15)] = g[2, k, max(14 - k, 0)] = 1
    g[3, 4:12, 4:12] = 1
    g[3, 6:10, 6:10] = 0
    return g


BASE = glyphs()


def make_images(n):
    y = torch.randint(0, 4, (n,), generator=gen)
    ang = (torch.rand(n, generator=gen) * 2 - 1) * math.radians(35)
    sc = 0.8 + 0.4 * torch.rand(n, generator=gen)
    sh = (torch.rand(n, 2, generator=gen) * 2 - 1) * 0.3
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0], theta[:, 0, 1] = torch.cos(ang) / sc, -torch.sin(ang) / sc
    theta[:, 1, 0], theta[:, 1, 1] = torch.sin(ang) / sc, torch.cos(ang) / sc
    theta[:, :, 2] = sh
    grid = F.affine_grid(theta, (n, 1, 16, 16), align_corners=False)
    x = F.grid_sample(BASE[y].unsqueeze(1), grid, align_corners=False)
    x = x + 0.3 * torch.randn(n, 1, 16, 16, generator=gen)
    flip = torch.rand(n, generator=gen) < 0.05
    y = torch.where(flip, torch.randint(0, 4, (n,), generator=gen), y)
    return x, y


x_train, y_train = make_images(N_TRAIN)
x_val, y_val = make_images(384)
y_train = y_train[torch.randperm(N_TRAIN)]


class STN(nn.Module):
    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.Conv2d(1, 8, 5), nn.MaxPool2d(2), nn.ReLU(), nn.Conv2d(8, 10, 5), nn.ReLU(),
                                 nn.Flatten(), nn.Linear(40, 32), nn.ReLU(), nn.Linear(32, 6))
        nn.init.zeros_(self.loc[-1].weight)
        self.loc[-1].bias.data.copy_(torch.tensor([1.0, 0, 0, 0, 1.0, 0]))
        self.features = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten())
        self.head = nn.Sequential(nn.Linear(512, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, 4))

    def forward(self, x):
        theta = self.loc(x).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        x = F.grid_sample(x, grid, align_corners=False)
        return self.head(self.features(x))


model = STN()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)
steps = N_TRAIN // BATCH


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(x_val)
        vl = criterion(logits, y_val).item()
        acc = (logits.argmax(1) == y_val).float().mean().item()
    model.train()
    return vl, acc


n_params = sum(p.numel() for p in model.parameters())
log_start(dict(name=NAME, n_params=n_params, n_train=N_TRAIN, n_val=384, lr=LR, batch=BATCH, epochs=EPOCHS, n_layers=len(list(model.parameters()))))
gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, cor, cnt = 0.0, 0, 0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        xb, yb = x_train[idx], y_train[idx]
        optimizer.zero_grad()
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        cor += (logits.argmax(1) == yb).sum().item()
        cnt += len(idx)
        log_step(epoch, i + 1, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    tv = time.time()
    vl, acc = evaluate()
    et = time.time() - te
    log_epoch(epoch, EPOCHS, dict(tl=tot / cnt, tm=cor / cnt, vl=vl, vm=acc, el=time.time() - t0, et=et,
                                  vt=time.time() - tv, lr=optimizer.param_groups[0]["lr"], gstep=gstep, nb=steps,
                                  thr=cnt / max(et, 1e-9)))
log_end(dict(vm=acc, vl=vl, el=time.time() - t0))
