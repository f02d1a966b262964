"""RankNet (Burges et al.) pairwise learning-to-rank on synthetic queries: each query has 20 candidate documents with
16 features; graded relevance 0-3 is a quantised nonlinear function of the features plus noise. An MLP scorer
(16 -> 64 -> 64 -> 1, ReLU, dropout 0.1) is trained on all pairs (i, j) of a query with rel_i > rel_j with the
logistic pairwise loss log(1 + exp(-(s_i - s_j))); one batch = 8 queries. Metric: NDCG@5 (higher is better) on
120 held-out queries."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "ranknet"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, HIDDEN = 0.001, 8, 15, 480, 120, 64
DOCS, FEATS = 20, 16
MET = "ndcg@5"
HIGHER = True



def log_start(info):
    print(f"പരിശീലനം ആരംഭിക്കുന്നു: {info['name']}, പാരാമീറ്ററുകൾ {info['n_params']}, ബാച്ച് {info['batch']} ചോദ്യങ്ങൾ")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    print(f"യുഗം {ep}/{E}: പരിശീലന നഷ്ടം {m['tl']:.4f} | സാധൂകരണ നഷ്ടം {m['vl']:.4f} | "
          f"സാധൂകരണ NDCG@5 {m['vm']:.4f}")


def log_end(m):
    print(f"പൂർത്തിയായി. സമയം {m['el']:.1f} സെക്കൻഡ്")


gen = torch.Generator().manual_seed(11)
w_true = torch.randn(FEATS, generator=gen)


def make(nq):
    x = torch.randn(nq, DOCS, FEATS, generator=gen)
    s = x @ w_true / 4 + 0.8 * torch.sin(x[..., 0] * x[..., 1]) + 0.5 * torch.randn(nq, DOCS, generator=gen)
    rel = torch.bucketize(s, torch.tensor([0.3, 1.0, 1.7]))
    return x, rel


x_train, r_train = make(N_TRAIN)
x_val, r_val = make(N_VAL)

model = nn.Sequential(nn.Linear(FEATS, HIDDEN), nn.ReLU(), nn.Dropout(0.1), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                      nn.Dropout(0.1), nn.Linear(HIDDEN, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
scheduler = None
steps = math.ceil(N_TRAIN / BATCH)
disc = 1.0 / torch.log2(torch.arange(2, 7).float())


def ndcg5(scores, rel):
    order = scores.argsort(1, descending=True)[:, :5]
    gains = (2.0 ** rel.gather(1, order) - 1) * disc
    ideal = (2.0 ** rel.sort(1, descending=True).values[:, :5] - 1) * disc
    return (gains.sum(1) / ideal.sum(1).clamp_min(1e-9)).mean().item()


def pair_loss(scores, rel):
    diff = scores[:, :, None] - scores[:, None, :]
    mask = (rel[:, :, None] > rel[:, None, :]).float()
    return (F.softplus(-diff) * mask).sum() / mask.sum()


def train_batch(idx, epoch):
    xb, rb = x_train[idx], r_train[idx]
    optimizer.zero_grad()
    scores = model(xb).squeeze(-1)
    loss = pair_loss(scores, rb)
    loss.backward()
    optimizer.step()
    return loss.item(), ndcg5(scores.detach(), rb)


@torch.no_grad()
def evaluate():
    model.eval()
    scores = model(x_val).squeeze(-1)
    vl = pair_loss(scores, r_val).item()
    model.train()
    return vl, ndcg5(scores, r_val)


n_params = sum(p.numel() for p in model.parameters())
log_start(dict(name=NAME, n_params=n_params, n_train=N_TRAIN, n_val=N_VAL, lr=LR, batch=BATCH, epochs=EPOCHS))
gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, cnt, mtot = 0.0, 0, 0.0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        loss, mb = train_batch(idx, epoch)
        gstep += 1
        tot += loss * len(idx)
        mtot += mb * len(idx)
        cnt += len(idx)
        log_step(epoch, i + 1, steps, loss, optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    if scheduler is not None:
        scheduler.step()
    tv = time.time()
    vl, vm = evaluate()
    tl = tot / cnt
    tm = mtot / cnt
    et = time.time() - te
    log_epoch(epoch, EPOCHS, dict(tl=tl, tm=tm, vl=vl, vm=vm, el=time.time() - t0, et=et, vt=time.time() - tv,
                                  lr=optimizer.param_groups[0]["lr"], gstep=gstep, nb=steps, thr=cnt / max(et, 1e-9)))
log_end(dict(vm=vm, vl=vl, el=time.time() - t0))
