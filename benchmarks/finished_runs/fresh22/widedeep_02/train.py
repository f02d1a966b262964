"""Wide & Deep click-through-rate model on synthetic impressions: 4 categorical fields (site 30, ad 20, device 6,
hour-bucket 8 values) and 5 dense features. Clicks are Bernoulli from a logit with per-category effects, a site x ad
interaction (the crossed feature the wide part sees), and a nonlinear function of the dense features. The wide part is
a linear model over one-hot categories plus the hashed site x ad cross; the deep part embeds each field in 8-d,
concatenates the dense features and runs a 2x64 ReLU MLP with dropout; logit = wide + deep. BCE-with-logits, Adam. Metrics:
validation logloss and AUC."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)
torch.set_num_threads(1)
NAME = "widedeep"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL = 0.002, 64, 8, 8000, 2000
EMB, HIDDEN, DROPOUT = 8, 64, 0.2
CARD = [30, 20, 6, 8]
MET = "auc"
HIGHER = True

def log_start(info):
    print(f"ເລີ່ມການຝຶກ: {info['name']}, ພາລາມິເຕີ {info['n_params']}, ຂະໜາດຊຸດ {info['batch']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    print(f"ຮອບ {ep}/{E} | ການສູນເສຍຝຶກ {m['tl']:.4f} | ການສູນເສຍກວດສອບ {m['vl']:.4f} | {MET} ກວດສອບ {m['vm']:.4f}")


def log_end(m):
    print(f"ຝຶກສຳເລັດ ໃຊ້ເວລາ {m['el']:.1f} ວິນາທີ")


gen = torch.Generator().manual_seed(8)
eff = [0.8 * torch.randn(c, generator=gen) for c in CARD]
cross_eff = 1.2 * torch.randn(CARD[0] * CARD[1], generator=gen) * (torch.rand(CARD[0] * CARD[1], generator=gen) < 0.2)
wd = torch.randn(5, generator=gen)


def make(n):
    cats = torch.stack([torch.randint(0, c, (n,), generator=gen) for c in CARD], 1)
    dense = torch.randn(n, 5, generator=gen)
    logit = -1.2 + sum(eff[j][cats[:, j]] for j in range(4)) + cross_eff[cats[:, 0] * CARD[1] + cats[:, 1]]
    logit = logit + 0.6 * torch.tanh(dense @ wd) + 0.5 * dense[:, 0] * dense[:, 1]
    y = (torch.rand(n, generator=gen) < torch.sigmoid(logit)).float()
    return cats, dense, y


c_train, d_train, y_train = make(N_TRAIN)
c_val, d_val, y_val = make(N_VAL)


def auc(score, y):
    order = torch.argsort(score)
    ranks = torch.empty_like(score)
    ranks[order] = torch.arange(1, len(score) + 1, dtype=score.dtype)
    npos = y.sum()
    nneg = len(y) - npos
    return ((ranks[y == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg)).item()


class WideDeep(nn.Module):
    def __init__(self):
        super().__init__()
        self.wide = nn.ModuleList([nn.Embedding(c, 1) for c in CARD])
        self.wide_cross = nn.Embedding(CARD[0] * CARD[1], 1)
        for e in list(self.wide) + [self.wide_cross]:
            nn.init.zeros_(e.weight)
        self.embs = nn.ModuleList([nn.Embedding(c, EMB) for c in CARD])
        self.deep = nn.Sequential(nn.Linear(4 * EMB + 5, HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT),
                                  nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT), nn.Linear(HIDDEN, 1))

    def forward(self, cats, dense):
        w = sum(self.wide[j](cats[:, j]) for j in range(4)) + self.wide_cross(cats[:, 0] * CARD[1] + cats[:, 1])
        h = torch.cat([self.embs[j](cats[:, j]) for j in range(4)] + [dense], 1)
        return (w + self.deep(h)).squeeze(1)


model = WideDeep()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
steps = math.ceil(N_TRAIN / BATCH)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "batch": BATCH, "lr": LR, "n_train": N_TRAIN, "n_val": N_VAL})
t0 = time.time()
gstep = 0
for ep in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot = 0.0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        out = model(c_train[idx], d_train[idx])
        loss = F.binary_cross_entropy_with_logits(out, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        log_step(ep, i, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        out_v = model(c_val, d_val)
        vl = F.binary_cross_entropy_with_logits(out_v, y_val).item()
        va = auc(out_v, y_val)
        tm = auc(model(c_train, d_train), y_train)
    log_epoch(ep, EPOCHS, {"tl": tot / N_TRAIN, "tm": tm, "vl": vl, "vm": va,
                           "lr": optimizer.param_groups[0]["lr"], "el": time.time() - t0, "sec": time.time() - te,
                           "gstep": gstep})
log_end({"el": time.time() - t0, "gstep": gstep, "ep": EPOCHS, "vm": va, "vl": vl, "n_train": N_TRAIN})
