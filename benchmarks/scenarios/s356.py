# SimCLR pretraining in miniature, after a PyTorch SimCLR reimplementation (NT-Xent loss, temperature 0.5, Adam
# 3e-4): synthetic 3x10x10 "images" from 10 hidden classes (a +-0.5 class shape under unit-variance instance detail, a strong
# per-image colour cast and brightness offset), SimCLR-style augmentations (centre 8x8 crop, strong colour
# jitter, Gaussian noise, random erasing), MLP encoder (192-256-256) + projection head (256-128),
# batch 128 (256 views), 1500 steps over 1000 unlabelled images. Logs the NT-Xent loss and the contrastive top-1
# accuracy every 100 steps, and a 5-NN probe accuracy of the encoder features on 500 labelled held-out images
# (labelled bank of 1000 images), writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(356)
NC = 10
protos = torch.sign(torch.randn(NC, 1, 10, 10, generator=g))


def images(n):
    y = torch.randint(0, NC, (n,), generator=g)
    x = 0.5 * protos[y] + torch.randn(n, 1, 10, 10, generator=g)
    x = x * (0.2 + 1.6 * torch.rand(n, 3, 1, 1, generator=g)) + 2 * (torch.rand(n, 1, 1, 1, generator=g) - 0.5)
    return x, y


def augment(x):
    n = len(x)
    v = x[:, :, 1:9, 1:9]
    v = v * (0.2 + 1.6 * torch.rand(n, 3, 1, 1, generator=g)) + 2 * (torch.rand(n, 1, 1, 1, generator=g) - 0.5)
    v = v + 0.2 * torch.randn(v.shape, generator=g)
    return v.masked_fill(torch.rand(n, 1, 8, 8, generator=g) < 0.15, 0.0).flatten(1)


Xtr, _ = images(1000)
Xbank, Ybank = images(1000)
Xte, Yte = images(500)
enc = nn.Sequential(nn.Linear(192, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU())
proj = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 128))
opt = torch.optim.Adam(list(enc.parameters()) + list(proj.parameters()), lr=3e-4)
T, B = 0.5, 128


def knn_acc():
    with torch.no_grad():
        fb = F.normalize(enc(Xbank[:, :, 1:9, 1:9].flatten(1)), dim=1)
        ft = F.normalize(enc(Xte[:, :, 1:9, 1:9].flatten(1)), dim=1)
        pred = torch.mode(Ybank[(ft @ fb.t()).topk(5, dim=1).indices], dim=1).values
    return (pred == Yte).float().mean().item()


print(f"step    0 | 5-NN probe acc {knn_acc():.3f}")
rows, acc_l, loss_l = [], [], []
target = torch.cat([torch.arange(B, 2 * B), torch.arange(0, B)])
for step in range(1, 1501):
    x = Xtr[torch.randint(0, len(Xtr), (B,), generator=g)]
    z = F.normalize(proj(enc(torch.cat([augment(x), augment(x)]))), dim=1)
    logits = (z @ z.t() / T).masked_fill(torch.eye(2 * B, dtype=torch.bool), -1e9)
    loss = F.cross_entropy(logits, target)
    opt.zero_grad(); loss.backward(); opt.step()
    loss_l.append(loss.item()); acc_l.append((logits.argmax(1) == target).float().mean().item())
    if step % 100 == 0:
        r = dict(step=step, nt_xent_loss=sum(loss_l) / len(loss_l), contrastive_top1=sum(acc_l) / len(acc_l), knn_acc=knn_acc())
        rows.append(r); acc_l, loss_l = [], []
        print(f"step {step:4d} | loss {r['nt_xent_loss']:.4f} | contrastive top-1 {r['contrastive_top1']:.3f} | 5-NN probe acc {r['knn_acc']:.3f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
