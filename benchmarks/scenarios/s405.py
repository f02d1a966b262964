# ssn_superpixels (NVlabs, Caffe) training in miniature, ported to PyTorch: a small CNN produces
# per-pixel features (appended to scaled xy), a differentiable soft k-means (Superpixel Sampling
# Network) with 16 grid-initialised superpixels and 5 iterations assigns pixels to superpixels, and
# the loss is the cross-entropy of segmentation labels reconstructed through the soft assignment
# plus a small compactness term. Synthetic 24x24 images made of 3-6 noisy colour regions
# (Voronoi cells), batch 4, Adam 1e-4 as in the repo's solver, Caffe-style solver log lines.
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(13); torch.manual_seed(13); torch.set_num_threads(1)
S, K, NL = 24, 16, 6
yy, xx = np.mgrid[0:S, 0:S]
def image():
    n = np.random.randint(3, 7); c = np.random.rand(n, 2) * S; lab = np.argmin(((yy[..., None] - c[:, 0]) ** 2 + (xx[..., None] - c[:, 1]) ** 2), -1)
    col = np.random.rand(n, 3); img = col[lab] + 0.12 * np.random.randn(S, S, 3)
    return img.transpose(2, 0, 1).astype(np.float32), lab
net = nn.Sequential(nn.Conv2d(5, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 15, 3, padding=1))
pos = torch.tensor(np.stack([yy, xx]) / S, dtype=torch.float32)
g = np.linspace(S / 8, S - S / 8, 4); init_idx = torch.tensor([int(a) * S + int(b) for a in g for b in g])
def ssn(img):
    x = torch.cat([img, pos[None].expand(len(img), -1, -1, -1)], 1)
    f = torch.cat([net(x), 2.0 * pos[None].expand(len(img), -1, -1, -1)], 1).flatten(2).transpose(1, 2)   # B,N,C
    cent = f[:, init_idx]
    for _ in range(5):
        q = torch.softmax(-torch.cdist(f, cent) ** 2, -1)                     # B,N,K
        cent = (q.transpose(1, 2) @ f) / (q.sum(1)[..., None] + 1e-8)
    return q, f, cent
opt = torch.optim.Adam(net.parameters(), lr=1e-4)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['iteration', 'loss', 'recon_loss'])
t0 = time.time(); run = 0.0
for it in range(1, 1201):
    b = [image() for _ in range(4)]
    img = torch.tensor(np.stack([a for a, _ in b])); lab = torch.tensor(np.stack([l for _, l in b])).flatten(1)
    q, f, cent = ssn(img)
    onehot = F.one_hot(lab, NL).float()
    sp_lab = (q.transpose(1, 2) @ onehot) / (q.sum(1)[..., None] + 1e-8)      # B,K,NL
    rec = q @ sp_lab
    recon = -(onehot * torch.log(rec + 1e-8)).sum(-1).mean()
    compact = ((f[..., -2:] - (q @ cent)[..., -2:]) ** 2).sum(-1).mean()
    loss = recon + 1e-3 * compact
    opt.zero_grad(); loss.backward(); opt.step(); run += loss.item()
    if it % 50 == 0:
        print("I1205 %s solver.cpp:228] Iteration %d, loss = %.5f" % (time.strftime('%H:%M:%S'), it, run / 50))
        print("I1205 %s solver.cpp:244]     Train net output #0: loss_recon = %.5f (* 1 = %.5f loss)" % (time.strftime('%H:%M:%S'), recon.item(), recon.item()))
        wr.writerow([it, round(run / 50, 5), round(recon.item(), 5)]); run = 0.0
