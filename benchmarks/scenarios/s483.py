# AlexMa123/DCNN-SHHS demo in miniature: sleep staging from a per-night cardio-respiratory signal with a
# dilated 1-D CNN that emits one 4-class prediction (wake, light, deep, REM) per 30-s epoch. As in the
# repository's updated dataset_tools.py, every night is padded to 10 hours; the signal is padded with
# zeros and the sleep-stage sequence (slp) with -1. The demo's training loop calls L = loss(out, slp)
# with a plain nn.CrossEntropyLoss. Synthetic nights (3 to 8 hours long, 4 Hz -> 8 samples per epoch
# after feature extraction) replace the SHHS recordings.
import numpy as np
import torch, torch.nn as nn

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
EPOCHS_10H = 1200            # 10 hours of 30-s epochs
SPE = 8                      # signal samples per sleep epoch
N_NIGHTS = 48
N_CLASSES = 4

def make_night():
    n = np.random.randint(360, 960)                 # 3 to 8 hours
    stages = np.zeros(n, np.int64); s = 0
    trans = np.array([[.90, .08, .00, .02], [.03, .90, .04, .03], [.01, .06, .93, .00], [.02, .05, .00, .93]])
    for i in range(n):
        s = np.random.choice(4, p=trans[s]); stages[i] = s
    means = np.array([1.0, 0.2, -0.6, 0.5]); amps = np.array([0.8, 0.5, 0.2, 1.0])
    t = np.arange(n * SPE) / SPE
    sig = np.repeat(means[stages], SPE) + np.repeat(amps[stages], SPE) * np.sin(2 * np.pi * 0.3 * t)
    sig = sig + 0.4 * np.random.randn(n * SPE)
    return sig.astype(np.float32), stages

def pad_night(sig, slp):
    # dataset_tools.py: pad every night to 10 hours; signal with 0, stages with -1
    x = np.zeros(EPOCHS_10H * SPE, np.float32); x[:len(sig)] = sig
    y = -np.ones(EPOCHS_10H, np.int64); y[:len(slp)] = slp
    return x, y

nights = [pad_night(*make_night()) for _ in range(N_NIGHTS)]
X = torch.tensor(np.stack([n[0] for n in nights]))[:, None]
Y = torch.tensor(np.stack([n[1] for n in nights]))
print('loaded %d nights, padded to %d epochs (%.1f h)' % (len(X), EPOCHS_10H, EPOCHS_10H / 120), flush=True)

class DCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Sequential(nn.Conv1d(1, 16, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
                                  nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
                                  nn.Conv1d(32, 32, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2))
        self.dil = nn.Sequential(*[nn.Sequential(nn.Conv1d(32, 32, 7, padding=3 * d, dilation=d), nn.ReLU())
                                   for d in (2, 4, 8, 16)])
        self.out = nn.Conv1d(32, N_CLASSES, 1)
    def forward(self, x):
        return self.out(self.dil(self.down(x)))        # (batch, 4, 1200)

model = DCNN()
loss = nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
batch = 8
for epoch in range(1, 6):
    perm = torch.randperm(len(X)); tot = 0.0
    for i in range(0, len(X), batch):
        idx = perm[i:i + batch]
        sig, slp = X[idx], Y[idx]
        out = model(sig)
        L = loss(out, slp)
        opt.zero_grad(); L.backward(); opt.step()
        tot += L.item() * len(idx)
    with torch.no_grad():
        pred = model(X).argmax(1); m = Y >= 0
        acc = (pred[m] == Y[m]).float().mean().item()
    print('epoch %d  loss %.4f  acc %.4f' % (epoch, tot / len(X), acc), flush=True)
