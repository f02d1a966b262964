# Context-aware CTR model in miniature, after run_recbole(model='FM', dataset='ml-100k'): a synthetic ml-100k-like
# interaction table (943 users, 1682 items, 100000 ratings, label = rating >= 4 as in RecBole's threshold) with token
# fields user_id, item_id, gender, occupation and float fields age and timestamp, RecBole-style FM (first-order linear
# part + second-order pairwise interactions, a float field is embedded as value * field embedding), Adam lr 1e-3,
# train_batch_size 2048, eval_args split RS [0.8, 0.1, 0.1], mode labeled, metrics AUC and LogLoss, 8 epochs.
# The float fields are fed as loaded: the dataset config does not set `normalize_all: True`, so age stays in years
# and timestamp in seconds since 1970 (about 8.8e8). Prints RecBole-like epoch lines and the final result dict.
import time
from collections import OrderedDict
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(358)
NU, NI, N = 943, 1682, 100000
u_f = torch.randn(NU, 4, generator=g)
i_f = torch.randn(NI, 4, generator=g)
u_gender = torch.randint(0, 2, (NU,), generator=g)
u_occ = torch.randint(0, 21, (NU,), generator=g)
u_age = torch.randint(7, 74, (NU,), generator=g).float()
uid = torch.randint(0, NU, (N,), generator=g)
iid = torch.randint(0, NI, (N,), generator=g)
ts = 874724710.0 + torch.rand(N, generator=g) * 18e6
u_b = torch.randn(NU, generator=g)
i_b = torch.randn(NI, generator=g)
score = u_b[uid] + i_b[iid] + 0.3 * (u_f[uid] * i_f[iid]).sum(1) + 0.03 * (u_age[uid] - 35) + 0.5 * torch.randn(N, generator=g)
label = (score > score.median()).float()
X_tok = torch.stack([uid, iid, u_gender[uid], u_occ[uid]], 1)
X_flt = torch.stack([u_age[uid], ts], 1)
perm = torch.randperm(N, generator=g)
tr, va, te = perm[:80000], perm[80000:90000], perm[90000:]
offsets = torch.tensor([0, NU, NU + NI, NU + NI + 2])
n_tok = NU + NI + 2 + 21


class FM(nn.Module):
    def __init__(self, d=10):
        super().__init__()
        self.tok_emb = nn.Embedding(n_tok, d)
        self.tok_lin = nn.Embedding(n_tok, 1)
        self.flt_emb = nn.Embedding(2, d)
        self.flt_lin = nn.Embedding(2, 1)
        self.bias = nn.Parameter(torch.zeros(1))
        for m in [self.tok_emb, self.tok_lin, self.flt_emb, self.flt_lin]:
            nn.init.xavier_normal_(m.weight)  # RecBole's context-aware init

    def forward(self, xt, xf):
        idx = xt + offsets
        e = torch.cat([self.tok_emb(idx), xf.unsqueeze(-1) * self.flt_emb.weight], 1)
        first = self.tok_lin(idx).sum((1, 2)) + (xf * self.flt_lin.weight[:, 0]).sum(1) + self.bias
        s = e.sum(1)
        second = 0.5 * (s * s - (e * e).sum(1)).sum(1)
        return first + second


def auc(p, y):
    order = torch.argsort(p)
    ranks = torch.empty_like(p)
    ps, _ = torch.sort(p)
    # average ranks for ties
    uniq, inv, cnt = torch.unique(ps, return_inverse=True, return_counts=True)
    start = torch.cumsum(cnt, 0) - cnt
    avg = start.float() + (cnt.float() + 1) / 2
    ranks[order] = avg[inv]
    npos = y.sum()
    nneg = len(y) - npos
    return float((ranks[y == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg))


def evaluate(model, idx):
    model.eval()
    with torch.no_grad():
        p = torch.sigmoid(model(X_tok[idx], X_flt[idx]))
    y = label[idx].double()
    pc = p.double().clamp(1e-15, 1 - 1e-15)
    ll = float(-(y * torch.log(pc) + (1 - y) * torch.log(1 - pc)).mean())
    return OrderedDict([('auc', round(auc(p, y), 4)), ('logloss', round(ll, 4))])


model = FM()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
lossf = nn.BCEWithLogitsLoss()
best, best_res = -1, None
for epoch in range(8):
    t0 = time.time()
    model.train()
    p = tr[torch.randperm(len(tr), generator=g)]
    tot = 0.0
    for b in range(0, len(p), 2048):
        bi = p[b:b + 2048]
        loss = lossf(model(X_tok[bi], X_flt[bi]), label[bi])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item()
    t1 = time.time()
    print(f"epoch {epoch} training [time: {t1 - t0:.2f}s, train loss: {tot:.4f}]")
    res = evaluate(model, va)
    print(f"epoch {epoch} evaluating [time: {time.time() - t1:.2f}s, valid_score: {res['auc']:.6f}]")
    print(f"valid result: \nauc : {res['auc']}    logloss : {res['logloss']}")
    if res['auc'] > best:
        best, best_res = res['auc'], res
        print("Saving current best: saved/FM-ml-100k.pth")
print({'best_valid_score': best, 'valid_score_bigger': True, 'best_valid_result': best_res,
       'test_result': evaluate(model, te)})
