# contrastive pre-training (NT-Xent between two distorted views of the same patch), cosine LR decay
import csv
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

BATCH, TAU, EPOCHS = 128, 0.1, 30
g = torch.Generator().manual_seed(0)
content = torch.randn(3072, 48, generator=g)           # "patches" (flattened features)


def distort(x):
    scale = 1 + 0.3 * torch.randn(x.shape[0], 1)
    return x * scale + 0.6 * torch.randn_like(x) + 0.2 * torch.randn(x.shape[0], 1)


encoder = nn.Sequential(nn.Linear(48, 256), nn.ReLU(), nn.Linear(256, 128))
projector = nn.Sequential(nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 64))
params = list(encoder.parameters()) + list(projector.parameters())
opt = torch.optim.SGD(params, lr=0.3, momentum=0.9, weight_decay=1e-6)
steps_per_epoch = len(content) // BATCH
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS * steps_per_epoch)


def nt_xent(z1, z2):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    sim = z @ z.t() / TAU
    sim.fill_diagonal_(-1e9)
    n = z1.shape[0]
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "lr"])
    step = 0
    for epoch in range(EPOCHS):
        perm = torch.randperm(len(content))
        ep_loss = 0.0
        for i in range(steps_per_epoch):
            x = content[perm[i * BATCH:(i + 1) * BATCH]]
            loss = nt_xent(projector(encoder(distort(x))), projector(encoder(distort(x))))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            ep_loss += loss.item()
            w.writerow([step, epoch, f"{loss.item():.5f}", f"{sched.get_last_lr()[0]:.6f}"])
        print("Epoch %d, loss %.4f, lr %.5f" % (epoch + 1, ep_loss / steps_per_epoch, sched.get_last_lr()[0]))
