"""Domain-adversarial neural network (DANN) for unsupervised domain adaptation: 20-d sensor readings from four
machine states (classes); a labelled source domain and an unlabelled target domain whose readings are linearly
distorted and offset. A shared 2x64 ReLU feature extractor, a class head trained on source labels and a domain
discriminator trained through a gradient-reversal layer (lambda ramped 0 -> 1 by 2/(1+exp(-10p))-1); 5% of source labels
resampled at random. Adam; the printed loss is the source classification loss (the domain loss is not shown);
validation loss and accuracy are measured on 800 labelled target-domain rows."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "dann"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, HIDDEN, DROPOUT, WD = 5e-4, 32, 12, 2000, 800, 64, 0.2, 0.0
MET = "acc"
LOSSNAME = "SoftmaxCrossEntropyLoss"
GF = "NllLossBackward0"
def log_start(info):
    print(f"तालिम सुरु भयो: {info['n_params']} प्यारामिटरहरू, ब्याच साइज {info['batch']}, इपोक {info['epochs']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    if MET == "acc":
        print(f"इपोक {ep}/{E} | तालिम हानि: {m['tl']:.4f} | तालिम शुद्धता: {m['tm'] * 100:.2f}% | "
              f"प्रमाणीकरण हानि: {m['vl']:.4f} | प्रमाणीकरण शुद्धता: {m['vm'] * 100:.2f}% | समय: {m['et']:.1f} सेकेन्ड")
    else:
        print(f"इपोक {ep}/{E} | तालिम हानि: {m['tl']:.5f} | प्रमाणीकरण हानि: {m['vl']:.5f} | प्रमाणीकरण RMSE: {m['vm']:.4f} | समय: {m['et']:.1f} सेकेन्ड")


def log_end(m):
    print(f"तालिम सकियो। कुल समय {m['el']:.1f} सेकेन्ड")


gen = torch.Generator().manual_seed(11)
CENTERS = torch.randn(4, 20, generator=gen) * 0.45
A = torch.eye(20) + 0.25 * torch.randn(20, 20, generator=gen)
SHIFT = 0.8 * torch.randn(20, generator=gen)


def make(n, target, noise=0.0):
    y = torch.randint(0, 4, (n,), generator=gen)
    x = CENTERS[y] + torch.randn(n, 20, generator=gen)
    if target:
        x = x @ A + SHIFT
    flip = torch.rand(n, generator=gen) < noise
    y = torch.where(flip, torch.randint(0, 4, (n,), generator=gen), y)
    return x, y


xs, ys = make(N_TRAIN, False, noise=0.05)
xt, _ = make(N_TRAIN, True)
xv, yv = make(N_VAL, True)


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lam):
        ctx.lam = lam
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return -ctx.lam * g, None


class DANN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(20, HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT),
                                      nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT))
        self.classifier = nn.Linear(HIDDEN, 4)
        self.domain = nn.Sequential(nn.Linear(HIDDEN, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.classifier(self.features(x))


model = DANN()
criterion = nn.CrossEntropyLoss()
dom_criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)
scheduler = None
steps = math.ceil(N_TRAIN / BATCH)


def train_batch(idx, epoch):
    p = ((epoch - 1) * steps + (gstep % steps)) / (EPOCHS * steps)
    lam = 2.0 / (1.0 + math.exp(-10 * p)) - 1.0
    tidx = torch.randint(0, N_TRAIN, (len(idx),))
    optimizer.zero_grad()
    fs, ft = model.features(xs[idx]), model.features(xt[tidx])
    logits = model.classifier(fs)
    cls_loss = criterion(logits, ys[idx])
    f_all = GradReverse.apply(torch.cat([fs, ft]), lam)
    d_lab = torch.cat([torch.zeros(len(idx)), torch.ones(len(idx))])
    dom_loss = dom_criterion(model.domain(f_all).squeeze(-1), d_lab)
    (cls_loss + dom_loss).backward()
    optimizer.step()
    return cls_loss.item(), (logits.argmax(1) == ys[idx]).float().mean().item()


def evaluate():
    model.eval()
    with torch.no_grad():
        out = model(xv)
        vl = criterion(out, yv).item()
        acc = (out.argmax(1) == yv).float().mean().item()
    model.train()
    return vl, acc


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
    tm = mtot / cnt if MET == "acc" else math.sqrt(mtot / cnt)
    et = time.time() - te
    log_epoch(epoch, EPOCHS, dict(tl=tl, tm=tm, vl=vl, vm=vm, el=time.time() - t0, et=et, vt=time.time() - tv,
                                  lr=optimizer.param_groups[0]["lr"], gstep=gstep, nb=steps, thr=cnt / max(et, 1e-9)))
log_end(dict(vm=vm, vl=vl, el=time.time() - t0))
