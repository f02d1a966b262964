"""ArcFace (additive angular margin) identity classifier on synthetic 32-d face descriptors: 12 identities, each a
prototype vector plus per-sample nuisance variation (pose/lighting noise), 5% of labels resampled at random. A 2-layer
MLP embedding (BatchNorm, ReLU) to 48-d, L2-normalised, and an ArcFace head with learnable class centres, scale s=16
and margin m=0.3 added to the target angle; cross-entropy on the scaled logits, SGD with momentum. Validation
accuracy is nearest class centre by cosine on 720 held-out samples; validation loss uses the same margin logits."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "arcface"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, EMB, DROPOUT, S, M = 0.05, 64, 10, 2400, 720, 48, 0.3, 16.0, 0.3
MET = "acc"
LOSSNAME = "SoftmaxCrossEntropyLoss"
GF = "NllLossBackward0"
def log_start(info):
    print(f"Пачатак навучання: {info['n_params']} параметраў, {info['n_train']} прыкладаў, памер пакета {info['batch']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    if MET == "acc":
        print(f"Эпоха {ep:2d}/{E} — страты навучання: {m['tl']:.4f}, дакладнасць навучання: {m['tm']:.3f}; "
              f"страты праверкі: {m['vl']:.4f}, дакладнасць праверкі: {m['vm']:.3f}")
    else:
        print(f"Эпоха {ep:2d}/{E} — страты навучання: {m['tl']:.5f}; страты праверкі: {m['vl']:.5f}, RMSE праверкі: {m['vm']:.4f}")


def log_end(m):
    print(f"Навучанне завершана за {m['el']:.1f} с")


gen = torch.Generator().manual_seed(5)
PROTO = torch.randn(12, 32, generator=gen)
MIX = torch.randn(32, 32, generator=gen) / 32 ** 0.5


def make(n, noise=0.0):
    y = torch.randint(0, 12, (n,), generator=gen)
    x = PROTO[y] * 0.6 + 1.0 * torch.randn(n, 32, generator=gen) @ MIX * 2.0 + 0.35 * torch.randn(n, 32, generator=gen)
    flip = torch.rand(n, generator=gen) < noise
    y = torch.where(flip, torch.randint(0, 12, (n,), generator=gen), y)
    return x, y


x_train, y_train = make(N_TRAIN, noise=0.05)
x_val, y_val = make(N_VAL)


class ArcMarginHead(nn.Module):
    def __init__(self, d, k):
        super().__init__()
        self.W = nn.Parameter(torch.randn(k, d) * 0.01)

    def forward(self, emb, y=None):
        cos = F.linear(F.normalize(emb), F.normalize(self.W))
        if y is None:
            return cos
        theta = torch.acos(cos.clamp(-1 + 1e-7, 1 - 1e-7))
        onehot = F.one_hot(y, cos.size(1)).float()
        return S * (onehot * torch.cos(theta + M) + (1 - onehot) * cos)


class FaceNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(32, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(DROPOUT),
                                      nn.Linear(128, EMB), nn.BatchNorm1d(EMB))
        self.head = ArcMarginHead(EMB, 12)

    def forward(self, x, y=None):
        return self.head(self.backbone(x), y)


model = FaceNet()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9, weight_decay=5e-4)
scheduler = None
steps = math.ceil(N_TRAIN / BATCH)


def train_batch(idx, epoch):
    xb, yb = x_train[idx], y_train[idx]
    optimizer.zero_grad()
    logits = model(xb, yb)
    loss = criterion(logits, yb)
    loss.backward()
    optimizer.step()
    return loss.item(), (logits.argmax(1) == yb).float().mean().item()


def evaluate():
    model.eval()
    with torch.no_grad():
        vl = criterion(model(x_val, y_val), y_val).item()
        acc = (model(x_val).argmax(1) == y_val).float().mean().item()
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
