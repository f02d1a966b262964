"""Keras (2015) MLP in miniature (after a "How to set clipnorm?" question).

Tabular regression-free binary classification: 20 raw features of very
different scales as they come out of the feature extraction (counts in the
thousands, byte sizes up to ~1e5, ratios in [0, 1], a few heavy-tailed
columns), 6000 training rows, 20% validation split.  Dense 20-512-512-2
with relu hidden units and dropout 0.5, softmax output, categorical
cross-entropy, SGD(lr=0.01, decay=1e-6, momentum=0.9, nesterov=True),
batch 128, 10 epochs, Keras-0.x style progress.  No clipnorm and no input
standardisation.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
rng = np.random.RandomState(510)
torch.manual_seed(510)
n, d = 6000, 20
z = rng.randn(n, d)
scales = np.array([3e3, 1.5e3, 8e4, 1e5, 1, 1, 1, 250, 40, 6e3, 1, 0.5, 2e4, 900, 1, 60, 1, 3e3, 1, 1e4])
X = np.abs(z + 3.0) * scales
X[:, [3, 12, 19]] *= np.exp(rng.randn(n, 3))          # heavy tails
w = rng.randn(d)
y = ((z * w).sum(1) + 0.5 * rng.randn(n) > 0).astype(int)
X = X.astype(np.float32)
split = int(0.8 * n)
Xt, yt, Xv, yv = [torch.from_numpy(a) for a in (X[:split], y[:split], X[split:], y[split:])]
print('X_train shape:', tuple(Xt.shape), ' feature max per column:', np.round(X.max(0)).astype(int).tolist()[:6], '...')

model = nn.Sequential(nn.Linear(d, 512), nn.ReLU(), nn.Dropout(0.5),
                      nn.Linear(512, 512), nn.ReLU(), nn.Dropout(0.5),
                      nn.Linear(512, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, nesterov=True)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda it: 1.0 / (1.0 + 1e-6 * it))   # Keras decay=1e-6
print('Train on %d samples, validate on %d samples' % (len(Xt), len(Xv)))
for epoch in range(1, 11):
    model.train()
    perm = torch.randperm(len(Xt))
    tot = 0.0; acc = 0.0
    for i in range(0, len(Xt), 128):
        idx = perm[i:i + 128]
        p = F.softmax(model(Xt[idx]), 1)
        loss = -torch.log(p[torch.arange(len(idx)), yt[idx]]).mean()   # categorical_crossentropy on the softmax output
        opt.zero_grad(); loss.backward(); opt.step(); sched.step()
        tot += loss.item() * len(idx); acc += (p.argmax(1) == yt[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        pv = F.softmax(model(Xv), 1)
        vl = -torch.log(pv[torch.arange(len(yv)), yv]).mean().item()
        va = (pv.argmax(1) == yv).float().mean().item()
    print('Epoch %d/10\n%d/%d [==============================] - 1s - loss: %.4f - acc: %.4f - val_loss: %.4f - val_acc: %.4f'
          % (epoch, len(Xt), len(Xt), tot / len(Xt), acc / len(Xt), vl, va))
