# IPNN: Product-based Neural Network with inner products (Qu et al., "Product-based Neural Networks for User
# Response Prediction", ICDM 2016, arXiv:1611.00144) for click-through-rate prediction on a synthetic
# Criteo-like log: 8 categorical fields + 2 numeric fields, field embeddings, a linear signal z and the
# pairwise inner products p of the field embeddings, an MLP on [z; p], one logit, BCE, Adam.
# Printed like a CTR training tool: key=value step lines and an evaluation line per epoch.
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(7)

FIELDS = [20, 15, 30, 10, 25, 12, 8, 40]     # cardinalities: site, app, device, hour, ad, slot, os, advertiser
N_TRAIN, N_VAL = 20000, 5000
EMB = 8
HIDDEN = [64, 32]
DROPOUT = 0.2
BATCH = 256
EPOCHS = 8
LR = 1e-3
L2_EMB = 1e-6
LOG_EVERY = 20


def make_log(n, g, P):
    cats = torch.stack([torch.randint(0, c, (n,), generator=g) for c in FIELDS], 1)
    price = torch.exp(3 + 0.8 * torch.randn(n, generator=g))          # ad price, heavy-tailed
    dwell = 5 + 60 * torch.rand(n, generator=g)                         # seconds on page
    bias, U = P
    z = sum(bias[j][cats[:, j]] for j in range(len(FIELDS)))
    for a, b in [(0, 4), (1, 7), (2, 5), (3, 6)]:                       # user-ad affinities
        z = z + (U[a][cats[:, a]] * U[b][cats[:, b]]).sum(1)
    z = z - 0.5 * (torch.log(price) - 3) + 0.02 * (dwell - 35) - 1.4
    y = (torch.rand(n, generator=g) < torch.sigmoid(z)).float()
    num = torch.stack([torch.log(price), dwell], 1)
    return cats, num, y


g = torch.Generator().manual_seed(1611)
P = ([0.6 * torch.randn(c, generator=g) for c in FIELDS], [0.9 * torch.randn(c, 3, generator=g) for c in FIELDS])
tr_cat, tr_num, tr_y = make_log(N_TRAIN, g, P)
va_cat, va_num, va_y = make_log(N_VAL, g, P)
mu, sd = tr_num.mean(0), tr_num.std(0)
tr_num, va_num = (tr_num - mu) / sd, (va_num - mu) / sd


class IPNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.offsets = torch.tensor([0] + torch.tensor(FIELDS).cumsum(0)[:-1].tolist())
        self.embed = nn.Embedding(sum(FIELDS), EMB)
        nn.init.normal_(self.embed.weight, std=0.05)
        self.num_proj = nn.Linear(2, EMB)
        nf = len(FIELDS) + 1
        self.rows, self.cols = torch.triu_indices(nf, nf, 1)
        dims = [nf * EMB + len(self.rows)] + HIDDEN
        layers = []
        for a, b in zip(dims[:-1], dims[1:]):
            layers += [nn.Linear(a, b), nn.ReLU(), nn.Dropout(DROPOUT)]
        layers += [nn.Linear(dims[-1], 1)]
        self.mlp = nn.Sequential(*layers)

    def forward(self, cat, num):
        e = torch.cat([self.embed(cat + self.offsets), self.num_proj(num).unsqueeze(1)], 1)   # B x F x EMB
        p = (e[:, self.rows] * e[:, self.cols]).sum(-1)                                       # inner products
        return self.mlp(torch.cat([e.flatten(1), p], 1)).squeeze(1)


def auc(s, y):
    order = torch.argsort(s)
    ranks = torch.empty_like(s)
    ranks[order] = torch.arange(1, len(s) + 1, dtype=s.dtype)
    npos = y.sum()
    nneg = len(y) - npos
    return float((ranks[y == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg))


model = IPNN()
opt = torch.optim.Adam(model.parameters(), lr=LR)
print(f"# fields={len(FIELDS)} features={sum(FIELDS)} train={N_TRAIN} val={N_VAL} ctr={tr_y.mean():.4f}")
print(f"# params={sum(p.numel() for p in model.parameters())} emb={EMB} hidden={HIDDEN} lr={LR} batch={BATCH}")
best = 0.0
step = 0
for epoch in range(EPOCHS):
    t0 = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    run_loss, run_n = 0.0, 0
    for i in range(0, N_TRAIN, BATCH):
        idx = perm[i:i + BATCH]
        logit = model(tr_cat[idx], tr_num[idx])
        loss = F.binary_cross_entropy_with_logits(logit, tr_y[idx])
        loss = loss + L2_EMB * model.embed.weight.pow(2).sum()
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9)
        opt.step()
        step += 1
        run_loss += loss.item()
        run_n += 1
        if step % LOG_EVERY == 0:
            print(f"  epoch={epoch} step={step} lr={LR:g} logloss={run_loss / run_n:.6f} gN={gn:.2f}, {time.strftime('%a %b %d %H:%M:%S %Y')}")
            run_loss, run_n = 0.0, 0
    model.eval()
    with torch.no_grad():
        s = model(va_cat, va_num)
        vl = F.binary_cross_entropy_with_logits(s, va_y).item()
        str_ = model(tr_cat[:5000], tr_num[:5000])
        tauc = auc(str_, tr_y[:5000])
    va = auc(s, va_y)
    best = max(best, va)
    print(f"# Epoch-time {time.time() - t0:.2f}s Train AUC {tauc:.6f} Eval AUC {va:.6f} Eval logloss {vl:.6f}. Best AUC {best:.6f}.")
print(f"# done: best eval AUC {best:.6f}")
