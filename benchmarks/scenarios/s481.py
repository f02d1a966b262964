# yangdai97/MultiChannelSleepNet on Sleep-EDF-2013 in miniature: per-subject files of multi-channel
# (Fpz-Cz EEG, Pz-Oz EEG, EOG) time-frequency features of 30-s epochs and per-subject label files, a
# multi-channel network (one transformer-style encoder per channel: linear embedding of the 29 time frames,
# one self-attention layer, mean pooling; channel features concatenated and classified into W, N1, N2,
# N3, REM), Adam lr 1e-3, batch 64, subject-wise train/test split, per-epoch accuracy and macro-F1.
# As in the report, the feature files and the label files are collected from their two folders
# separately and zipped together without sorting either list, so each subject's features are paired
# with another subject's hypnogram. 20 synthetic subjects with 240 scored epochs each replace Sleep-EDF.
import numpy as np
import torch, torch.nn as nn

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
N_SUB, N_EP, C, T, Fq = 20, 240, 3, 29, 16
STAGES = ['W', 'N1', 'N2', 'N3', 'REM']
trans = np.array([[.80, .12, .05, .01, .02], [.08, .50, .32, .02, .08], [.03, .05, .80, .08, .04],
                  [.02, .01, .15, .82, .00], [.03, .07, .08, .00, .82]])
proto = np.random.randn(5, C, Fq).astype(np.float32)

def subject(i):
    rs = np.random.RandomState(100 + i)
    y = np.zeros(N_EP, np.int64); s = 0
    for t in range(N_EP):
        s = rs.choice(5, p=trans[s]); y[t] = s
    x = proto[y][:, :, None, :] + 4.0 * rs.randn(N_EP, C, T, Fq).astype(np.float32)
    return x, y

# "folders" of per-subject files; names as in Sleep-EDF (SC4ssN)
names = ['SC4%02d1' % i for i in range(N_SUB)]
store = {n: subject(i) for i, n in enumerate(names)}
feature_files = ['data/%s_x.npy' % n for n in names]                 # listed in name order
label_files = ['label/%s_y.npy' % n for n in names[7:] + names[:7]]  # listed in the order written, not sorted
def load(path):
    n = path.split('/')[1][:6]
    return store[n][0] if path.endswith('_x.npy') else store[n][1]

pairs = list(zip(feature_files, label_files))
train_pairs, test_pairs = pairs[:16], pairs[16:]
def stack(pairs):
    return (torch.tensor(np.concatenate([load(a) for a, b in pairs])),
            torch.tensor(np.concatenate([load(b) for a, b in pairs])))
Xtr, Ytr = stack(train_pairs); Xte, Yte = stack(test_pairs)
print('train epochs %d, test epochs %d, class counts %s' % (len(Ytr), len(Yte), np.bincount(Ytr.numpy(), minlength=5).tolist()), flush=True)

class ChannelEncoder(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.emb = nn.Linear(Fq, d); self.att = nn.MultiheadAttention(d, 4, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, d)); self.n1 = nn.LayerNorm(d); self.n2 = nn.LayerNorm(d)
    def forward(self, x):
        h = self.emb(x); h = self.n1(h + self.att(h, h, h)[0]); h = self.n2(h + self.ff(h))
        return h.mean(1)
class MultiChannelSleepNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.ModuleList([ChannelEncoder() for _ in range(C)])
        self.head = nn.Sequential(nn.Linear(32 * C, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, 5))
    def forward(self, x):
        return self.head(torch.cat([e(x[:, c]) for c, e in enumerate(self.enc)], 1))

def macro_f1(y, p):
    f = []
    for k in range(5):
        tp = ((p == k) & (y == k)).sum(); fp = ((p == k) & (y != k)).sum(); fn = ((p != k) & (y == k)).sum()
        f.append(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn))
    return float(np.mean(f))

model = MultiChannelSleepNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
for epoch in range(1, 9):
    model.train(); perm = torch.randperm(len(Ytr)); tot = cor = 0
    for i in range(0, len(Ytr), 64):
        idx = perm[i:i + 64]; out = model(Xtr[idx]); loss = crit(out, Ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item() * len(idx); cor += (out.argmax(1) == Ytr[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        p = model(Xte).argmax(1)
    acc = (p == Yte).float().mean().item()
    print('Epoch %2d | train loss %.4f | train acc %.4f | test acc %.4f | test MF1 %.4f | predicted %s'
          % (epoch, tot / len(Ytr), cor / len(Ytr), acc, macro_f1(Yte.numpy(), p.numpy()),
             np.bincount(p.numpy(), minlength=5).tolist()), flush=True)
