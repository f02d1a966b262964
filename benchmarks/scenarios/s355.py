# DARTS-style architecture search data split in miniature, after pt.darts search.py on a custom image folder: a
# 6-class image dataset stored class by class (as ImageFolder lists it, sorted by class directory), split into
# the search "train" half and "valid" half by index (indices[:split], indices[split:]) with no shuffling before the
# split, SubsetRandomSampler for each half. Synthetic 3x12x12 images (class pattern + noise), a small CNN standing
# in for the search network (weights only, no architecture parameters), SGD lr 0.025 momentum 0.9 wd 3e-4, cosine
# schedule, batch 64, 10 epochs. Prints pt.darts-like Train / Valid lines with loss and Prec@(1,5) per epoch,
# writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(355)
NC, PER = 6, 400
pats = torch.randn(NC, 3, 12, 12, generator=g)
X = torch.cat([pats[c] * (0.5 + 0.5 * torch.rand(PER, 1, 1, 1, generator=g)) + 1.2 * torch.randn(PER, 3, 12, 12, generator=g) for c in range(NC)])
Y = torch.arange(NC).repeat_interleave(PER)                                 # stored class by class
n_train = len(X)
split = n_train // 2
indices = list(range(n_train))
train_idx, valid_idx = torch.tensor(indices[:split]), torch.tensor(indices[split:])

model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                      nn.Flatten(), nn.Linear(32, NC))
opt = torch.optim.SGD(model.parameters(), lr=0.025, momentum=0.9, weight_decay=3e-4)
EPOCHS = 10
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS, eta_min=0.001)


def prec(out, y):
    top5 = out.topk(5, 1).indices
    return (top5[:, 0] == y).float().mean().item(), (top5 == y[:, None]).any(1).float().mean().item()


rows = []
for epoch in range(EPOCHS):
    model.train(); perm = train_idx[torch.randperm(len(train_idx), generator=g)]
    tl = t1 = t5 = 0.0; nb = 0
    for k in range(0, len(perm), 64):
        i = perm[k:k + 64]
        out = model(X[i]); loss = F.cross_entropy(out, Y[i])
        opt.zero_grad(); loss.backward(); nn.utils.clip_grad_norm_(model.parameters(), 5.0); opt.step()
        p1, p5 = prec(out, Y[i]); tl += loss.item(); t1 += p1; t5 += p5; nb += 1
    sched.step()
    model.eval()
    with torch.no_grad():
        out = model(X[valid_idx]); vl = F.cross_entropy(out, Y[valid_idx]).item(); v1, v5 = prec(out, Y[valid_idx])
    r = dict(epoch=epoch + 1, train_loss=tl / nb, train_prec1=t1 / nb, train_prec5=t5 / nb, valid_loss=vl, valid_prec1=v1, valid_prec5=v5)
    rows.append(r)
    print(f"Train: [{epoch + 1:2d}/{EPOCHS}] Final Loss {r['train_loss']:.3f} Prec@(1,5) ({100 * r['train_prec1']:.1f}%, {100 * r['train_prec5']:.1f}%)")
    print(f"Valid: [{epoch + 1:2d}/{EPOCHS}] Final Loss {vl:.3f} Prec@(1,5) ({100 * v1:.1f}%, {100 * v5:.1f}%)")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
