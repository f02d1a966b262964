# learn-to-hash (Neural LSH) in miniature: 32-d SIFT-like points are partitioned into 16 bins (balanced k-means
# as the stand-in for the KaHIP graph partition); a 2-hidden-layer MLP (512 units, dropout 0.3, batch norm)
# learns to map a point to a bin from soft targets = the bin histogram of its 10 nearest neighbours, loss =
# cross-entropy with the soft targets summed over the batch (the repo's logged scale), Adam 3e-4 with
# weight decay 1e-4 and a step LR schedule, 20 epochs. Validation: 10-NN recall when the query probes its top-1
# and its top-2 bins, and top-1 bin accuracy. Prints a line per epoch; writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(315)
N, D, M, K = 6000, 32, 16, 10
centres = torch.randn(40, D, generator=g) * 1.0
X = centres[torch.randint(0, 40, (N,), generator=g)] + torch.randn(N, D, generator=g) * 1.6
C = X[torch.randperm(N, generator=g)[:M]].clone()
for _ in range(15):                                  # balanced k-means partition (capacity N / M)
    d = torch.cdist(X, C)
    order = d.min(1).values.argsort()
    lab = torch.full((N,), -1, dtype=torch.long); cap = torch.zeros(M)
    for i in order.tolist():
        for c in d[i].argsort().tolist():
            if cap[c] < N / M:
                lab[i] = c; cap[c] += 1; break
    C = torch.stack([X[lab == c].mean(0) for c in range(M)])
knn = torch.cdist(X, X).topk(K + 1, largest=False).indices[:, 1:]
soft = F.one_hot(lab[knn], M).float().mean(1)
perm = torch.randperm(N, generator=g)
tr, va = perm[:5000], perm[5000:]

model = nn.Sequential(nn.Linear(D, 512), nn.BatchNorm1d(512), nn.ReLU(), nn.Dropout(0.3),
                      nn.Linear(512, 512), nn.BatchNorm1d(512), nn.ReLU(), nn.Dropout(0.3), nn.Linear(512, M))
opt = torch.optim.Adam(model.parameters(), lr=3e-4, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=8, gamma=0.5)
rows = []
for epoch in range(1, 21):
    model.train(); p = tr[torch.randperm(len(tr), generator=g)]; tl, nb = 0.0, 0
    for b in range(0, len(p), 32):
        idx = p[b:b + 32]
        loss = -(soft[idx] * F.log_softmax(model(X[idx]), 1)).sum()
        opt.zero_grad(); loss.backward(); opt.step(); tl += loss.item(); nb += 1
    sched.step()
    model.eval()
    with torch.no_grad():
        top = model(X[va]).topk(2, 1).indices
        nb_bins = lab[knn[va]]
        r1 = (nb_bins == top[:, :1]).float().mean().item()
        r2 = ((nb_bins == top[:, :1]) | (nb_bins == top[:, 1:2])).float().mean().item()
        acc = (top[:, 0] == lab[va]).float().mean().item()
        vloss = -(soft[va] * F.log_softmax(model(X[va]), 1)).sum(1).mean().item() * 32
    rows.append(dict(epoch=epoch, train_loss=tl / nb, val_loss=vloss, val_knn_recall_1bin=r1,
                     val_knn_recall_2bins=r2, val_bin_acc=acc))
    print(f'epoch {epoch:2d} | train loss {tl / nb:.2f} | val loss {vloss:.2f} | 10-NN recall 1 bin {r1:.4f} '
          f'2 bins {r2:.4f} | bin acc {acc:.4f}')
with open('metrics.csv', 'w', newline='') as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0]))
    wr.writeheader(); wr.writerows(rows)
