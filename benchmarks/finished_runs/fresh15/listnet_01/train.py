"""ListNet learning-to-rank on synthetic queries: every query has 20 candidate documents with 12 features;
the graded relevance (0-4) is a bucketed noisy nonlinear function of the features. A per-document MLP scores
the documents and is trained with the ListNet top-one loss (cross-entropy between softmax(relevance) and
softmax(scores) over each query's list), Adam on mini-batches of queries. Reported: ListNet loss and NDCG@5
on training and held-out queries."""
import math
import time
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
LR, BATCH, EPOCHS, DROPOUT, WD = 3e-3, 4, 8, 0.1, 0.0

def log_start(n_params, n_tr, n_va, lr, batch, epochs):
    print(f"[ListNet] [Info] Number of training queries: {n_tr}, documents per query: 20, number of used features: 12")
    print(f"[ListNet] [Info] Number of validation queries: {n_va}")
    print(f"[ListNet] [Info] Scorer has {n_params} parameters, learning_rate={lr}, queries per batch={batch}")
    print("[ListNet] [Warning] Small query batches make the per-batch objective noisy; use log_every to smooth", file=sys.stderr)


def log_step(epoch, i, n, loss, gstep, el):
    if gstep % 30 == 0:
        print(f"[ListNet] [Debug] iter {gstep}: batch listnet = {loss:.5f}")


def log_epoch(epoch, epochs, tl, tn, vl, vn, el):
    print(f"[{epoch}]\ttraining's listnet: {tl:.6f}\ttraining's ndcg@5: {tn:.6f}\tvalid_1's listnet: {vl:.6f}\tvalid_1's ndcg@5: {vn:.6f}")


def log_end(vl, vn, el):
    print("Did not meet early stopping. Best iteration is:")
    print(f"[8]\tvalid_1's listnet: {vl:.6f}\tvalid_1's ndcg@5: {vn:.6f}")

N_DOCS, N_FEAT = 20, 12
gen = torch.Generator().manual_seed(7)
w_true = torch.randn(N_FEAT, generator=gen)


def make_queries(n):
    x = torch.randn(n, N_DOCS, N_FEAT, generator=gen)
    s = x @ w_true / math.sqrt(N_FEAT) + 0.8 * torch.tanh(x[..., 0] * x[..., 1]) + 0.35 * torch.randn(n, N_DOCS, generator=gen)
    rel = torch.bucketize(s, torch.tensor([-0.3, 0.4, 1.0, 1.6])).float()
    return x, rel


x_train, rel_train = make_queries(480)
x_val, rel_val = make_queries(120)


class Scorer(nn.Module):
    def __init__(self, hidden=64, p=0.1):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(N_FEAT, hidden), nn.ReLU(), nn.Dropout(p),
                                 nn.Linear(hidden, hidden // 2), nn.ReLU(), nn.Dropout(p),
                                 nn.Linear(hidden // 2, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def listnet_loss(scores, rel):
    return -(F.softmax(rel, dim=1) * F.log_softmax(scores, dim=1)).sum(1).mean()


def ndcg_at_k(scores, rel, k=5):
    order = scores.argsort(dim=1, descending=True)[:, :k]
    gains = (2 ** rel.gather(1, order) - 1)
    disc = 1.0 / torch.log2(torch.arange(2, k + 2).float())
    dcg = (gains * disc).sum(1)
    ideal = (2 ** rel.sort(dim=1, descending=True).values[:, :k] - 1)
    idcg = (ideal * disc).sum(1).clamp_min(1e-9)
    return (dcg / idcg).mean().item()


model = Scorer(p=DROPOUT)
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)
n_params = sum(p.numel() for p in model.parameters())
steps = (len(x_train) + BATCH - 1) // BATCH
log_start(n_params, len(x_train), len(x_val), LR, BATCH, EPOCHS)

gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    order = torch.randperm(len(x_train))
    total = 0.0
    for i in range(steps):
        idx = order[i * BATCH:(i + 1) * BATCH]
        optimizer.zero_grad()
        loss = listnet_loss(model(x_train[idx]), rel_train[idx])
        loss.backward()
        optimizer.step()
        gstep += 1
        total += loss.item() * len(idx)
        log_step(epoch, i + 1, steps, loss.item(), gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        tr_scores = model(x_train)
        va_scores = model(x_val)
        val_loss = listnet_loss(va_scores, rel_val).item()
        tr_ndcg, va_ndcg = ndcg_at_k(tr_scores, rel_train), ndcg_at_k(va_scores, rel_val)
    log_epoch(epoch, EPOCHS, total / len(x_train), tr_ndcg, val_loss, va_ndcg, time.time() - t0)
log_end(val_loss, va_ndcg, time.time() - t0)
