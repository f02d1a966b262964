"""Event-camera object classification in miniature (after rpg_event_representation_learning, N-Caltech101).

Synthetic event streams (x, y, t, p) for 12 object classes, each a moving
outline drawn by a saccading sensor (12 x 60 training and 12 x 20 validation
recordings at 32x32), stored one .npy per recording in class sub-folders of a
training and a validation archive.  The dataset class builds its class list
from the folder order as it comes back from the archive (the equivalent of
listdir(root): no sorting) and labels every recording by its position in that
list.  The two archives were packed in different folder orders.  Events are
binned into a 2-polarity x 4-time-bin voxel grid, small CNN, Adam 1e-3,
batch 32, 12 epochs, printing training and validation loss / accuracy per
epoch as the repository's main.py does.
"""
import io
import zipfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
rng = np.random.RandomState(2)
torch.manual_seed(2)
H = W = 32
CLASSES = ['accordion', 'airplanes', 'anchor', 'ant', 'barrel', 'bass', 'beaver', 'binocular',
           'bonsai', 'brain', 'brontosaurus', 'buddha']
shapes = [rng.rand(6, 2) * 20 + 6 for _ in CLASSES]   # closed polygon per class


def record(c):
    pts = shapes[c] + rng.randn(6, 2) * 1.2
    ev = []
    for k, (sx, sy) in enumerate([(1, 0), (0, 1), (-1, -1)]):        # three saccades
        for t in np.linspace(0, 1, 25):
            shift = np.array([sx, sy]) * 3 * t
            for i in range(6):
                a, b = pts[i] + shift, pts[(i + 1) % 6] + shift
                u = rng.rand(6)
                xy = a[None] + u[:, None] * (b - a)[None] + rng.randn(6, 2) * 0.5
                ts = (k + t) / 3 + rng.rand(6) * 0.01
                p = (rng.rand(6) < 0.5 + 0.3 * sx).astype(float)
                ev.append(np.c_[xy, ts, p])
    ev = np.concatenate(ev)
    noise = np.c_[rng.rand(200, 2) * 31, rng.rand(200), rng.randint(0, 2, 200)]
    ev = np.concatenate([ev, noise])
    ev[:, :2] = np.clip(ev[:, :2], 0, 31)
    return ev.astype(np.float32)


def pack(n_per_class, order):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as z:
        for name in order:
            c = CLASSES.index(name)
            for i in range(n_per_class):
                b = io.BytesIO(); np.save(b, record(c))
                z.writestr('%s/image_%04d.npy' % (name, i), b.getvalue())
    buf.seek(0)
    return buf


class NCaltech101:
    def __init__(self, archive):
        self.z = zipfile.ZipFile(archive)
        names = self.z.namelist()
        self.classes = list(dict.fromkeys(n.split('/')[0] for n in names))   # listdir(root) order
        self.files, self.labels = [], []
        for n in names:
            self.files.append(n)
            self.labels.append(self.classes.index(n.split('/')[0]))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        return np.load(io.BytesIO(self.z.read(self.files[i]))), self.labels[i]


def voxel(ev):
    v = torch.zeros(2, 4, H, W)
    x, y = ev[:, 0].astype(int), ev[:, 1].astype(int)
    tb = np.minimum((ev[:, 2] * 4).astype(int), 3)
    p = ev[:, 3].astype(int)
    np.add.at(v.numpy(), (p, tb, y, x), 1.0)
    return v.reshape(8, H, W) / 4.0


def tensors(ds):
    X = torch.stack([voxel(ds[i][0]) for i in range(len(ds))])
    return X, torch.tensor(ds.labels)


train_order = list(CLASSES)
val_order = list(CLASSES); rng.shuffle(val_order)
train_ds = NCaltech101(pack(60, train_order))
val_ds = NCaltech101(pack(20, val_order))
Xt, Yt = tensors(train_ds)
Xv, Yv = tensors(val_ds)

model = nn.Sequential(nn.Conv2d(8, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                      nn.Flatten(), nn.Linear(64, len(CLASSES)))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(12):
    model.eval()
    with torch.no_grad():
        out = model(Xv)
        vl, va = F.cross_entropy(out, Yv).item(), (out.argmax(1) == Yv).float().mean().item()
    print('Validation Loss %.4f  Accuracy %.4f' % (vl, va))
    model.train()
    perm = torch.randperm(len(Xt)); sl = sa = 0.0; nb = 0
    for i in range(0, len(Xt), 32):
        idx = perm[i:i + 32]
        out = model(Xt[idx]); loss = F.cross_entropy(out, Yt[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        sl += loss.item(); sa += (out.argmax(1) == Yt[idx]).float().mean().item(); nb += 1
    print('Training Loss %.4f  Accuracy %.4f' % (sl / nb, sa / nb))
model.eval()
with torch.no_grad():
    out = model(Xv)
    print('Final Validation Loss %.4f  Accuracy %.4f' % (F.cross_entropy(out, Yv).item(), (out.argmax(1) == Yv).float().mean().item()))
