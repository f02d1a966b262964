# point-cloud-prediction (PRBonn, PyTorch Lightning) in miniature: predict the next 3 range images
# of a rotating synthetic LiDAR scan (16 x 64 range image, objects moving across the scene) from
# the past 3, with a small 3D-conv encoder-decoder; loss = L1 range loss + mask BCE (chamfer weight
# 0.0), Adam, batch 8, 20 epochs, validation after every epoch, Lightning-style epoch lines.
# Config as posted in the report: LR 0.001, LR_EPOCH 1, LR_DECAY 0.5 -> StepLR(step_size=1, gamma=0.5)
# stepped once per epoch (the repository's default LR_DECAY is 0.99).
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(8); torch.manual_seed(8); torch.set_num_threads(1)
H, W, T = 16, 64, 6
def sequence():
    base = np.random.uniform(8, 12); r = np.full((T, H, W), base, np.float32)
    for _ in range(3):
        h0, w0 = np.random.randint(2, H - 5), np.random.randint(0, W); d = np.random.uniform(2, 6)
        v = np.random.choice([-3, -2, 2, 3]); hh, ww = np.random.randint(3, 6), np.random.randint(4, 9)
        for t in range(T):
            cols = (np.arange(w0, w0 + ww) + v * t) % W; r[t, h0:h0 + hh][:, cols] = d
    m = (np.random.rand(T, H, W) > 0.05).astype(np.float32)
    return r * m / 12.0, m
def dataset(n):
    s = [sequence() for _ in range(n)]
    return torch.tensor(np.stack([a for a, _ in s]))[:, None], torch.tensor(np.stack([b for _, b in s]))[:, None]
xtr, mtr = dataset(400); xva, mva = dataset(100)

class TCNet(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv3d(1, c, 3, padding=1), nn.LeakyReLU(), nn.Conv3d(c, 2 * c, 3, padding=1), nn.LeakyReLU())
        self.dec = nn.Sequential(nn.Conv3d(2 * c, c, 3, padding=1), nn.LeakyReLU(), nn.Conv3d(c, 2, 3, padding=1))
    def forward(self, past):
        o = self.dec(self.enc(past)); return o[:, :1], o[:, 1:]

cfg = {"LR": 0.001, "LR_EPOCH": 1, "LR_DECAY": 0.5, "BATCH_SIZE": 8, "MAX_EPOCH": 20,
       "LOSS_WEIGHT_CHAMFER_DISTANCE": 0.0, "LOSS_WEIGHT_RANGE_VIEW": 1.0, "LOSS_WEIGHT_MASK": 0.5}
model = TCNet()
opt = torch.optim.Adam(model.parameters(), lr=cfg["LR"])
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=cfg["LR_EPOCH"], gamma=cfg["LR_DECAY"])
def loss_fn(x, m):
    r, ml = model(x[:, :, :3])
    lr_ = (F.l1_loss(r, x[:, :, 3:], reduction='none') * m[:, :, 3:]).sum() / m[:, :, 3:].sum()
    lm = F.binary_cross_entropy_with_logits(ml, m[:, :, 3:])
    return cfg["LOSS_WEIGHT_RANGE_VIEW"] * lr_ + cfg["LOSS_WEIGHT_MASK"] * lm
f = open('metrics.csv', 'w', newline=''); w = csv.writer(f); w.writerow(['epoch', 'step', 'train_loss', 'val_loss', 'lr'])
step = 0; nb = len(xtr) // cfg["BATCH_SIZE"]
for epoch in range(cfg["MAX_EPOCH"]):
    model.train(); perm = torch.randperm(len(xtr)); tot = 0.0
    for b in range(nb):
        j = perm[b * 8:(b + 1) * 8]; loss = loss_fn(xtr[j], mtr[j])
        opt.zero_grad(); loss.backward(); opt.step(); tot += loss.item(); step += 1
    model.eval()
    with torch.no_grad(): vl = loss_fn(xva, mva).item()
    lr_now = opt.param_groups[0]['lr']
    print("Epoch %d: 100%%|##########| %d/%d [loss=%.4f, v_num=0, val/loss=%.4f, lr=%.2e]" % (epoch, nb, nb, tot / nb, vl, lr_now))
    w.writerow([epoch, step, round(tot / nb, 5), round(vl, 5), lr_now]); f.flush()
    sched.step()
f.close()
