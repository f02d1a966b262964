# xw1216/EEG-FM-Bench style fine-tuning run in miniature: a small EEG classifier (temporal convolution,
# depthwise spatial convolution over the channels, average pooling, linear head; dropout set to 0) trained
# with AdamW lr 3e-3 (weight_decay 0) and cross entropy on a cross-subject split (6 training, 4 validation,
# 4 test subjects), with loss and balanced accuracy on the validation and test subjects after every epoch.
# Synthetic 4-class motor-imagery-like EEG (8 channels, 128 samples per trial: class-specific rhythms on
# different channels under strong subject-specific channel mixing, gains and noise levels) replaces the
# benchmark's data sets and the foundation-model backbone.
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
C, T, K = 8, 128, 4
t = np.arange(T) / 128.0

def subject(sid, n=160):
    rs = np.random.RandomState(sid)
    mix = np.eye(C) + 0.6 * rs.randn(C, C)                     # subject-specific volume conduction
    gain = rs.uniform(0.5, 1.8); noise = rs.uniform(0.8, 2.0)
    y = rs.randint(K, size=n); X = np.zeros((n, C, T), np.float32)
    for i in range(n):
        src = 0.5 * rs.randn(C, T)
        f = [8, 11, 14, 20][y[i]] + rs.uniform(-1.5, 1.5)
        ch = [0, 2, 4, 6][y[i]]
        src[ch] += np.sin(2 * np.pi * f * t + rs.uniform(0, 6.3)) * rs.uniform(0.6, 1.4)
        src[ch + 1] += 0.5 * np.sin(2 * np.pi * f * t + rs.uniform(0, 6.3))
        X[i] = gain * (mix @ src) + noise * rs.randn(C, T)
    X = (X - X.mean(2, keepdims=True)) / X.std(axis=(0, 2), keepdims=True)[None].squeeze(0)
    return torch.tensor(X), torch.tensor(y)

def split(ids):
    parts = [subject(s) for s in ids]
    return torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])
Xtr, ytr = split(range(0, 6)); Xva, yva = split(range(12, 16)); Xte, yte = split(range(16, 20))
print('train %d trials (6 subjects), val %d (4), test %d (4)' % (len(ytr), len(yva), len(yte)), flush=True)

class EEGNetLike(nn.Module):
    def __init__(self):
        super().__init__()
        self.temporal = nn.Conv2d(1, 16, (1, 31), padding=(0, 15), bias=False); self.bn1 = nn.BatchNorm2d(16)
        self.spatial = nn.Conv2d(16, 32, (C, 1), groups=16, bias=False); self.bn2 = nn.BatchNorm2d(32)
        self.drop = nn.Dropout(0.0); self.head = nn.Linear(32 * 16, K)
    def forward(self, x):
        h = self.bn1(self.temporal(x[:, None]))
        h = F.elu(self.bn2(self.spatial(h)))
        h = self.drop(F.avg_pool2d(h, (1, 8)))
        return self.head(h.flatten(1))

def balanced_acc(y, p):
    return float(np.mean([(p[y == k] == k).mean() for k in range(K) if (y == k).any()]))

def evaluate(X, y):
    model.eval()
    with torch.no_grad():
        out = model(X)
    model.train()
    return F.cross_entropy(out, y).item(), balanced_acc(y.numpy(), out.argmax(1).numpy())

model = EEGNetLike()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
epochs = 20
for epoch in range(1, epochs + 1):
    perm = torch.randperm(len(ytr)); tot = 0.0; nb = 0
    for i in range(0, len(ytr), 64):
        idx = perm[i:i + 64]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item(); nb += 1
    vl, vb = evaluate(Xva, yva); tl, tb = evaluate(Xte, yte)
    print('Epoch %2d/%d | train_loss %.4f | val_loss %.4f val_balanced_acc %.4f | test_loss %.4f test_balanced_acc %.4f'
          % (epoch, epochs, tot / nb, vl, vb, tl, tb), flush=True)
