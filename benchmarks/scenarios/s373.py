"""Facial-expression CNN in miniature (after ResEmoteNet's FER2013 training script).

Synthetic 16x16 grayscale "faces" of 7 expressions (angry, disgust, fear, happy,
neutral, sad, surprise): the expression is a weak change of mouth / brow /
eye shapes on top of strong identity, pose and lighting variation.  The data
set folders are used as provided: some of the images in the validation and
test folders are byte-identical copies of training images (the same photo
filed under train/ and val/ or test/).  Small CNN with an SE block and a
residual connection, Adam 1e-3, batch 32, 30 epochs.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
rng = np.random.RandomState(0)
torch.manual_seed(0)
classes = ['angry', 'disgust', 'fear', 'happy', 'neutral', 'sad', 'surprise']
S = 16
yy, xx = np.mgrid[0:S, 0:S].astype(np.float32)


def face(c, r):
    cx, cy = S / 2 + r.randn() * 1.2, S / 2 + r.randn() * 1.2
    sc = r.uniform(0.8, 1.2)
    img = np.exp(-(((xx - cx) / (5.5 * sc)) ** 2 + ((yy - cy) / (6.5 * sc)) ** 2)) * r.uniform(0.4, 1.0)
    mouth_curve = [-0.6, -0.3, -0.2, 0.9, 0.0, -0.8, 0.1][c]
    mouth_open = [0.2, 0.1, 0.6, 0.3, 0.0, 0.0, 1.0][c]
    brow = [-0.8, -0.4, 0.5, 0.1, 0.0, 0.4, 0.9][c]
    my = cy + 3.2 * sc
    mouth = np.exp(-((yy - (my - mouth_curve * ((xx - cx) / 3.0) ** 2)) ** 2) / (0.6 + mouth_open)) \
        * np.exp(-((xx - cx) ** 2) / 6.0)
    brows = sum(np.exp(-((yy - (cy - 3.0 * sc - brow * (xx - ex) * s * 0.3)) ** 2) / 0.5 - ((xx - ex) ** 2) / 3.0)
                for ex, s in ((cx - 2.5, -1), (cx + 2.5, 1)))
    eyes = sum(np.exp(-((yy - (cy - 1.2 * sc)) ** 2 + (xx - ex) ** 2) / (0.8 + 0.6 * (c == 6))) for ex in (cx - 2.5, cx + 2.5))
    img = img - 0.9 * mouth - 0.7 * brows - 0.6 * eyes
    img = img * r.uniform(0.6, 1.4) + r.uniform(-0.3, 0.3) + 0.2 * r.randn(S, S) * r.uniform(0.5, 1.5)
    return img.astype(np.float32)


def make(n):
    y = rng.randint(0, 7, size=n)
    x = np.stack([face(c, rng) for c in y])[:, None]
    return x, y


Xtr, ytr = make(1400)
# val/ and test/ as provided: 200 own images each plus copies of training images
Xv_own, yv_own = make(200)
Xt_own, yt_own = make(200)
dup_v = rng.choice(1400, 160, replace=False)
dup_t = rng.choice(1400, 160, replace=False)
Xval = np.concatenate([Xv_own, Xtr[dup_v]]); yval = np.concatenate([yv_own, ytr[dup_v]])
Xte = np.concatenate([Xt_own, Xtr[dup_t]]); yte = np.concatenate([yt_own, ytr[dup_t]])
print('train: %d images, val: %d images, test: %d images' % (len(Xtr), len(Xval), len(Xte)))


class SE(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(c, c // 4), nn.Linear(c // 4, c)

    def forward(self, x):
        w = torch.sigmoid(self.fc2(F.relu(self.fc1(x.mean((2, 3))))))
        return x * w[:, :, None, None]


class ResEmoteNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 32, 3, padding=1); self.b1 = nn.BatchNorm2d(32)
        self.c2 = nn.Conv2d(32, 64, 3, padding=1); self.b2 = nn.BatchNorm2d(64)
        self.se = SE(64)
        self.r = nn.Conv2d(64, 64, 3, padding=1); self.rb = nn.BatchNorm2d(64)
        self.fc1 = nn.Linear(64 * 4 * 4, 256); self.fc2 = nn.Linear(256, 7)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.b1(self.c1(x))), 2)
        x = F.max_pool2d(F.relu(self.b2(self.c2(x))), 2)
        x = self.se(x)
        x = F.relu(x + self.rb(self.r(x)))
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


model = ResEmoteNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
T = lambda a: torch.from_numpy(a)


def evaluate(X, y):
    model.eval()
    with torch.no_grad():
        out = model(T(X)); yt = T(y).long()
        l = crit(out, yt).item(); a = (out.argmax(1) == yt).float().mean().item()
    model.train()
    return l, a


for epoch in range(30):
    perm = rng.permutation(len(Xtr)); tl = 0; corr = 0
    for i in range(0, len(perm), 32):
        idx = perm[i:i + 32]
        xb, yb = T(Xtr[idx]), T(ytr[idx]).long()
        opt.zero_grad(); out = model(xb); loss = crit(out, yb); loss.backward(); opt.step()
        tl += loss.item() * len(idx); corr += (out.argmax(1) == yb).sum().item()
    tel, tea = evaluate(Xte, yte)
    vl, va = evaluate(Xval, yval)
    print(f"Epoch {epoch+1}, Train Loss: {tl/len(Xtr):.4f}, Train Accuracy: {corr/len(Xtr):.4f}, "
          f"Test Loss: {tel:.4f}, Test Accuracy: {tea:.4f}, Validation Loss: {vl:.4f}, Validation Accuracy: {va:.4f}")

# new photos taken after training (never filed in any folder)
Xn, yn = make(400)
nl, na = evaluate(Xn, yn)
print(f"New photos: Loss: {nl:.4f}, Accuracy: {na:.4f}")
