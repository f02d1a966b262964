"""FiLM-conditioned CNN (Perez et al.) for a counting question on synthetic 3-channel 10x10 scenes: 1-6 non-overlapping
2x2 squares, each of one of three colours (channels) with brightness 0.7-1.0, pixel noise sd 0.1; the question is a
colour id and the answer is how many squares have that colour (0, 1, 2 or 3+, four classes). A conv stem, two
residual FiLM blocks (conv, BatchNorm without affine, per-channel gamma/beta predicted from a question embedding, ReLU),
global sum pooling and an MLP head; cross-entropy, Adam. Metric: answer accuracy on 800 held-out questions."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "film"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, CH = 0.002, 32, 16, 2000, 800, 32
S, NQ, NCLS = 10, 3, 4
DROPOUT, WD = 0.2, 0.0
MET = "acc"
HIGHER = True



def log_start(info):
    print(f"Fara horo: samfuri {info['name']}, sigogi {info['n_params']}, girman rukuni {info['batch']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    if i % 30 == 0:
        print(f"   mataki {i}/{n} asara {loss:.4f}")


def log_epoch(ep, E, m):
    print(f"Zagaye {ep}/{E}: asarar horo {m['tl']:.4f}, daidaiton horo {100 * m['tm']:.1f}%, "
          f"asarar tabbatarwa {m['vl']:.4f}, daidaiton tabbatarwa {100 * m['vm']:.1f}%")


def log_end(m):
    print(f"An gama horo cikin dakika {m['el']:.1f}")


gen = torch.Generator().manual_seed(7)


def make(n):
    img = 0.1 * torch.randn(n, 3, S, S, generator=gen)
    q = torch.randint(0, NQ, (n,), generator=gen)
    ans = torch.zeros(n, dtype=torch.long)
    for j in range(n):
        k = int(torch.randint(1, 7, (1,), generator=gen))
        cells = torch.randperm(25, generator=gen)[:k]
        cols = torch.randint(0, 3, (k,), generator=gen)
        for c, col in zip(cells.tolist(), cols.tolist()):
            r0, c0 = (c // 5) * 2, (c % 5) * 2
            img[j, col, r0:r0 + 2, c0:c0 + 2] += 0.7 + 0.3 * torch.rand(1, generator=gen).item()
        ans[j] = min(int((cols == q[j]).sum()), 3)
    return img, q, ans


x_train, q_train, y_train = make(N_TRAIN)
x_val, q_val, y_val = make(N_VAL)


class FiLMBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(CH, CH, 3, padding=1)
        self.bn = nn.BatchNorm2d(CH, affine=False)

    def forward(self, h, gamma, beta):
        z = self.bn(self.conv(h))
        z = gamma[:, :, None, None] * z + beta[:, :, None, None]
        return h + F.relu(z)


class FiLMNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, CH, 3, padding=1), nn.ReLU())
        self.qemb = nn.Embedding(NQ, 16)
        self.film = nn.Linear(16, 2 * 2 * CH)
        self.blocks = nn.ModuleList([FiLMBlock() for _ in range(2)])
        self.head = nn.Sequential(nn.Linear(CH, 64), nn.ReLU(), nn.Dropout(DROPOUT), nn.Linear(64, NCLS))

    def forward(self, x, q):
        h = self.stem(x)
        fp = self.film(self.qemb(q)).view(-1, 2, 2, CH)
        for k, blk in enumerate(self.blocks):
            h = blk(h, 1 + fp[:, k, 0], fp[:, k, 1])
        pooled = h.sum((2, 3)) / 10.0
        return self.head(pooled)


model = FiLMNet()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)
scheduler = None
steps = math.ceil(N_TRAIN / BATCH)


def train_batch(idx, epoch):
    xb, qb, yb = x_train[idx], q_train[idx], y_train[idx]
    optimizer.zero_grad()
    logits = model(xb, qb)
    loss = criterion(logits, yb)
    loss.backward()
    optimizer.step()
    return loss.item(), (logits.argmax(1) == yb).float().mean().item()


@torch.no_grad()
def evaluate():
    model.eval()
    logits = model(x_val, q_val)
    vl = criterion(logits, y_val).item()
    model.train()
    return vl, (logits.argmax(1) == y_val).float().mean().item()


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
