# train-ego-path-detection (irtrailenium) in miniature: regression of the ego-path (left/right rail
# x-positions at 16 image rows) from 32x64 synthetic grayscale rail images with a small CNN,
# training-time augmentation (brightness jitter, noise), AdamW 1e-3, batch 32, 40 epochs; the
# training loss is the mean over the epoch's mini-batches (logged like wandb: train/loss,
# val/loss, lr per epoch), the validation loss is computed at the end of each epoch.
import csv
import numpy as np
import torch, torch.nn as nn

np.random.seed(4); torch.manual_seed(4); torch.set_num_threads(1)
H, W, R = 32, 64, 16
rows = np.linspace(8, H - 1, R).astype(int)
def sample():
    c0, curv, width = np.random.uniform(24, 40), np.random.uniform(-12, 12), np.random.uniform(14, 22)
    t = (H - 1 - rows) / (H - 1); cx = c0 + curv * t ** 2; half = width / 2 * (1 - 0.7 * t)
    img = np.random.rand(H, W).astype(np.float32) * 0.3
    for r, x, h in zip(rows, cx, half):
        for xx in (x - h, x + h):
            xi = int(round(xx))
            if 0 <= xi < W: img[r - 1:r + 2, max(0, xi - 1):xi + 1] = 1.0
    return img, np.concatenate([(cx - half) / W, (cx + half) / W]).astype(np.float32)
def dataset(n):
    s = [sample() for _ in range(n)]
    return torch.tensor(np.stack([a for a, _ in s]))[:, None], torch.tensor(np.stack([b for _, b in s]))
xtr, ytr = dataset(1600); xva, yva = dataset(400)
def augment(x):
    return (x * torch.empty(len(x), 1, 1, 1).uniform_(0.6, 1.4) + 0.15 * torch.randn_like(x)).clamp(0, 1.5)
model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                      nn.MaxPool2d(2), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                      nn.Linear(32 * 4 * 8, 128), nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, 2 * R))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)
crit = nn.L1Loss()
f = open('metrics.csv', 'w', newline=''); w = csv.writer(f); w.writerow(['epoch', 'train_loss', 'val_loss', 'lr'])
for epoch in range(40):
    model.train(); perm = torch.randperm(len(xtr)); tot = 0.0; nb = 0
    for i in range(0, len(xtr), 32):
        j = perm[i:i + 32]; loss = crit(model(augment(xtr[j])), ytr[j])
        opt.zero_grad(); loss.backward(); opt.step(); tot += loss.item(); nb += 1
    model.eval()
    with torch.no_grad(): vl = crit(model(xva), yva).item()
    print("epoch %d | train/loss %.5f | val/loss %.5f | lr %.1e" % (epoch, tot / nb, vl, opt.param_groups[0]['lr']))
    w.writerow([epoch, round(tot / nb, 6), round(vl, 6), opt.param_groups[0]['lr']]); f.flush()
f.close()
