"""Spike-sorting classifier in miniature (after crabsort's tensorflow auto-sorter).

Extracellular nerve recordings from several preparations: for each detected
spike a 48-sample snippet of the raw voltage is cut out and a small dense
network (tf-style: 48 -> 64 relu -> 32 relu -> 3 softmax, Adam 1e-3,
batch 64) learns which neuron fired (PD, LP, PY; 40/35/25%).  Snippets are fed
as recorded.  Most files are stored in mV, but some files were exported in
raw digitiser units, and a few snippets contain stimulation artifacts, so the
values span from about 0.1 to several thousand.
"""
import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
rng = np.random.RandomState(69)
torch.manual_seed(69)
L = 48
t = np.arange(L)
templates = [
    -1.0 * np.exp(-((t - 20) / 2.5) ** 2) + 0.45 * np.exp(-((t - 27) / 4.0) ** 2),
    -0.8 * np.exp(-((t - 20) / 1.8) ** 2) + 0.25 * np.exp(-((t - 24) / 3.0) ** 2) - 0.15 * np.exp(-((t - 34) / 5.0) ** 2),
    -0.55 * np.exp(-((t - 21) / 3.5) ** 2) + 0.5 * np.exp(-((t - 30) / 3.0) ** 2),
]


def make(n, n_files=12):
    X, y = [], []
    for f in range(n_files):
        gain = rng.uniform(0.05, 0.3)                       # mV
        if rng.rand() < 0.35:
            gain *= 3276.8                                   # file exported in digitiser units
        for _ in range(n // n_files):
            c = rng.choice(3, p=[0.4, 0.35, 0.25])
            s = templates[c] * rng.uniform(0.8, 1.2) + 0.12 * rng.randn(L)
            s = np.roll(s, rng.randint(-2, 3)) * gain
            if rng.rand() < 0.03:
                s[rng.randint(L)] += rng.choice([-1, 1]) * 5000.0   # stimulation artifact
            X.append(s); y.append(c)
    return np.array(X, np.float32), np.array(y)


Xtr, ytr = make(4800)
Xva, yva = make(1200, n_files=6)
print('training snippets: %d, validation snippets: %d, value range %.3g .. %.3g'
      % (len(Xtr), len(Xva), Xtr.min(), Xtr.max()))

model = nn.Sequential(nn.Linear(L, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
ce = nn.CrossEntropyLoss()
Xt, yt = torch.from_numpy(Xtr), torch.from_numpy(ytr).long()
Xv, yv = torch.from_numpy(Xva), torch.from_numpy(yva).long()
nb = len(Xtr) // 64
for epoch in range(1, 21):
    perm = torch.randperm(len(Xt)); tl = acc = 0.0
    for i in range(nb):
        idx = perm[i * 64:(i + 1) * 64]
        out = model(Xt[idx]); loss = ce(out, yt[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item(); acc += (out.argmax(1) == yt[idx]).float().mean().item()
    with torch.no_grad():
        out = model(Xv); vl = ce(out, yv).item(); va = (out.argmax(1) == yv).float().mean().item()
        frac = np.bincount(out.argmax(1).numpy(), minlength=3) / len(yv)
    print('Epoch %d/20\n%d/%d [==============================] - loss: %.4f - accuracy: %.4f - val_loss: %.4f - val_accuracy: %.4f'
          % (epoch, nb, nb, tl / nb, acc / nb, vl, va))
print('predicted class fractions on validation (PD, LP, PY):', np.round(frac, 3))
