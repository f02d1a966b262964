"""FixMatch-style semi-supervised classification (Sohn et al. 2020) on synthetic 20-D data.
Four classes, each the union of two elongated Gaussian blobs in a random 6-D subspace of R^20 plus isotropic noise;
only 40 points are labelled (10 per class), 4000 are unlabelled, 1000 are held out. Each step takes 16 labelled and
112 unlabelled points: weak augmentation adds noise of sd 0.05, strong augmentation adds noise of sd 0.4 and zeroes
30% of the features; unlabelled points whose weak-view confidence is above 0.95 get their argmax as a pseudo-label
for the strong view. Loss = CE(labelled) + 1.0 * masked CE(strong view, pseudo-label). MLP 20-128-128-4, Adam;
metric: validation accuracy.
"""
import math
import random
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
random.seed(0)
NAME = "fixmatch"
MET = "val_acc"
HIGHER = True
LR, BATCH, EPOCHS = 5e-4, 8, 12
MU, LAMBDA_U, THRESH, WD = 7, 1.0, 0.9, 5e-4
N_LAB, N_UNLAB, N_VAL = 40, 4000, 1000

_STD = ("ep", "tl", "vl", "vm", "lr", "secs", "el", "best", "prev_vl", "nb")


def _extras(m):
    return {k: v for k, v in m.items() if k not in _STD}


_HDR = "%-11s %6s %9s %9s %8s %8s %8s"
_ROWS = []


def log_start(info):
    print(f"Linux 6.1.0 (trainer) \t12/06/2026 \t_x86_64_\t(2 CPU)")
    print()


def log_step(ep, i, n, loss, lr, extra):
    pass


def log_epoch(ep, E, m):
    if ep % 10 == 1:
        print(_HDR % (time.strftime("%I:%M:%S %p", time.gmtime()), "epoch", "loss", "val_loss", "val_acc", "lab_acc", "lr"))
    row = (m["tl"], m["vl"], m["vm"], m.get("labelled_acc", 0))
    _ROWS.append(row)
    print("%-11s %6d %9.4f %9.4f %8.4f %8.4f %8.5f" % (time.strftime("%I:%M:%S %p", time.gmtime()), ep, *row, m["lr"]))


def log_end(m):
    avg = [sum(r[j] for r in _ROWS) / len(_ROWS) for j in range(4)]
    print("%-11s %6s %9.4f %9.4f %8.4f %8.4f" % ("Average:", "all", *avg))


def run_epochs(model, opt, train_batches, evaluate, step_fn, n_train, n_val, after_epoch=None, clip=None):
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"name": NAME, "n_params": n_params, "n_train": n_train, "n_val": n_val, "lr": LR, "batch": BATCH,
               "epochs": EPOCHS, "n_batches": N_BATCHES})
    t_start = time.time()
    best, prev_vl = None, None
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb = 0.0, 0
        for i, batch in enumerate(train_batches(), 1):
            loss, extra = step_fn(batch)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, N_BATCHES, loss, opt.param_groups[0]["lr"], extra)
        model.eval()
        with torch.no_grad():
            res = evaluate()
        vl, vm = res[0], res[1]
        if best is None or (vm > best if HIGHER else vm < best):
            best = vm
        m = {"ep": ep, "tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb}
        if len(res) > 2:
            m.update(res[2])
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
        if after_epoch is not None:
            after_epoch()
    m["el"] = time.time() - t_start
    log_end(m)


N_BATCHES = 60
N_TRAIN = N_LAB
LOG_EVERY = 20
D, C = 20, 4

g = torch.Generator().manual_seed(0)
basis = torch.linalg.qr(torch.randn(D, 6, generator=g))[0]
centers = torch.randn(C, 2, 6, generator=g) * 1.3
stretch = torch.randn(C, 2, 6, 6, generator=g) * 0.45


def sample(n):
    y = torch.randint(0, C, (n,), generator=g)
    blob = torch.randint(0, 2, (n,), generator=g)
    z = torch.randn(n, 6, generator=g)
    z = centers[y, blob] + torch.einsum("nij,nj->ni", stretch[y, blob], z)
    x = z @ basis.T + 0.5 * torch.randn(n, D, generator=g)
    return x, y


def labelled(n_per):
    xs, ys = [], []
    while sum(len(v) for v in ys) < n_per * C:
        x, y = sample(200)
        for c in range(C):
            have = sum(int((v == c).sum()) for v in ys)
            take = (y == c).nonzero().flatten()[:max(0, n_per - have)]
            xs.append(x[take])
            ys.append(y[take])
    return torch.cat(xs), torch.cat(ys)


Xl, Yl = labelled(N_LAB // C)
Xu, _ = sample(N_UNLAB)
Xva, Yva = sample(N_VAL)

model = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, C))
opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WD)


def weak(x):
    return x + 0.05 * torch.randn_like(x)


def strong(x):
    return (x + 0.4 * torch.randn_like(x)) * (torch.rand_like(x) > 0.3).float()


def train_batches():
    for b in range(N_BATCHES):
        il = torch.randint(0, len(Xl), (BATCH,))
        iu = torch.randint(0, N_UNLAB, (BATCH * MU,))
        yield Xl[il], Yl[il], Xu[iu]


def step_fn(batch):
    xl, yl, xu = batch
    loss_x = F.cross_entropy(model(weak(xl)), yl)
    with torch.no_grad():
        probs = F.softmax(model(weak(xu)), 1)
        conf, pseudo = probs.max(1)
        mask = (conf >= THRESH).float()
    loss_u = (F.cross_entropy(model(strong(xu)), pseudo, reduction="none") * mask).mean()
    loss = loss_x + LAMBDA_U * loss_u
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item(), {"loss_x": loss_x.item(), "loss_u": loss_u.item(), "mask": mask.mean().item()}


def evaluate():
    out = model(Xva)
    loss = F.cross_entropy(out, Yva).item()
    acc = (out.argmax(1) == Yva).float().mean().item()
    lab_acc = (model(Xl).argmax(1) == Yl).float().mean().item()
    return loss, acc, {"labelled_acc": lab_acc}


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
