"""DCN-v2 (Deep & Cross Network) click-through-rate model on synthetic ad impressions: 4 categorical fields
(site, ad, hour bucket, device type; 8-d embeddings) and 6 standardized dense features. The true click logit has
per-category effects, a site x hour interaction and a dense0*dense1 product; clicks are Bernoulli draws (CTR ~ 0.25).
Two cross layers and a 2x64 ReLU deep tower in parallel, a linear head on their concatenation; BCE-with-logits,
Adam; hyperparameters in config.yaml; reported: logloss and AUC."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.manual_seed(0)
torch.set_num_threads(1)
with open("config.yaml") as _f:
    CFG = yaml.safe_load(_f)
LR, BATCH, EPOCHS, WD = CFG["lr"], CFG["batch_size"], CFG["epochs"], CFG["weight_decay"]


def log_start(n_params, n_tr, n_va, lr, batch, epochs, steps):
    print(f"تدريب شبكة DCN: {n_params} معامل، {n_tr} عينة تدريب و{n_va} عينة تحقق، معدل التعلم {lr}")


def log_step(epoch, i, n, loss, lr, gstep, el):
    if i % 20 == 0:
        print(f"  الحقبة {epoch} الدفعة {i}/{n}: الخسارة {loss:.4f}")


def log_epoch(epoch, epochs, tl, ta, vl, va, lr, gstep, el):
    print(f"الحقبة {epoch}/{epochs}: خسارة التدريب {tl:.4f}، AUC التدريب {ta:.4f} | خسارة التحقق {vl:.4f}، AUC التحقق {va:.4f}")


def log_end(va, el):
    print(f"انتهى التدريب. AUC النهائي على بيانات التحقق: {va:.4f}")

CARD = [12, 20, 8, 4]
N_DENSE = 6
gen = torch.Generator().manual_seed(21)
eff = [torch.randn(c, generator=gen) * 0.6 for c in CARD]
inter = torch.randn(CARD[0], CARD[2], generator=gen) * 0.8
w_dense = torch.randn(N_DENSE, generator=gen) * 0.4


def make_rows(n):
    cat = torch.stack([torch.randint(0, c, (n,), generator=gen) for c in CARD], 1)
    dense = torch.randn(n, N_DENSE, generator=gen)
    logit = -1.4 + sum(eff[j][cat[:, j]] for j in range(4)) + inter[cat[:, 0], cat[:, 2]]
    logit = logit + dense @ w_dense + 0.7 * dense[:, 0] * dense[:, 1]
    y = (torch.rand(n, generator=gen) < torch.sigmoid(logit)).float()
    return cat, dense, y


cat_all, dense_all, y_all = make_rows(25000)
# shuffle the impressions before the train/val split
perm = torch.randperm(len(y_all), generator=gen)
cat_all, dense_all = cat_all[perm], dense_all[perm]
cat_tr, dense_tr, y_tr = cat_all[:20000], dense_all[:20000], y_all[:20000]
cat_va, dense_va, y_va = cat_all[20000:], dense_all[20000:], y_all[20000:]


def auc(scores, labels):
    order = torch.argsort(scores)
    ranks = torch.empty_like(scores)
    ranks[order] = torch.arange(1, len(scores) + 1, dtype=scores.dtype)
    n_pos = labels.sum()
    n_neg = len(labels) - n_pos
    return ((ranks[labels == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)).item()


class CrossLayer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, x0, x):
        return x0 * self.lin(x) + x


class DCN(nn.Module):
    def __init__(self, n_dense, emb=8, hidden=64, n_cross=2):
        super().__init__()
        self.embs = nn.ModuleList([nn.Embedding(c, emb) for c in CARD])
        d = emb * len(CARD) + n_dense
        self.cross = nn.ModuleList([CrossLayer(d) for _ in range(n_cross)])
        self.deep = nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(d + hidden, 1)

    def forward(self, cat, dense):
        x0 = torch.cat([e(cat[:, j]) for j, e in enumerate(self.embs)] + [dense], 1)
        x = x0
        for layer in self.cross:
            x = layer(x0, x)
        return self.head(torch.cat([x, self.deep(x0)], 1)).squeeze(1)


model = DCN(dense_tr.shape[1])
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=CFG["lr_step"], gamma=CFG["lr_gamma"])
n_params = sum(p.numel() for p in model.parameters())
steps = (len(y_tr) + BATCH - 1) // BATCH
log_start(n_params, len(y_tr), len(y_va), LR, BATCH, EPOCHS, steps)

gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    order = torch.randperm(len(y_tr))
    tot = 0.0
    for i in range(steps):
        idx = order[i * BATCH:(i + 1) * BATCH]
        optimizer.zero_grad()
        loss = F.binary_cross_entropy_with_logits(model(cat_tr[idx], dense_tr[idx]), y_tr[idx])
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        log_step(epoch, i + 1, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    scheduler.step()
    model.eval()
    with torch.no_grad():
        s_tr = model(cat_tr, dense_tr)
        s_va = model(cat_va, dense_va)
        val_loss = F.binary_cross_entropy_with_logits(s_va, y_va).item()
    log_epoch(epoch, EPOCHS, tot / len(y_tr), auc(s_tr, y_tr), val_loss, auc(s_va, y_va),
              optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
log_end(auc(s_va, y_va), time.time() - t0)
