"""Pointer network that learns to sort: inputs are 6 numbers drawn uniformly from [0, 1], the target is the sequence of
input positions in ascending order of value. A GRU encoder reads the numbers, a GRUCell decoder fed the previously
pointed-to value attends over the encoder states (additive attention, already chosen positions masked) and the
attention scores are the pointer logits. Teacher forcing, cross-entropy over the 6 pointer steps, Adam; per-pointer
accuracy (teacher-forced) is reported."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "ptrnet"
LR, BATCH, EPOCHS, N_TRAIN, HID = 2e-3, 64, 15, 3200, 64
DROPOUT = 0.3
N_ELEM = 6
MET, LOSSNAME, HIGHER = "acc", "pointer_ce", True
def log_start(info):
    print(f"Մոդել՝ {info['name']}, պարամետրեր՝ {info['n_params']}, ուսուցման արագություն՝ {info['lr']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    if i % 20 == 0:
        print(f"   քայլ {gstep}: կորուստ {loss:.4f}")


def log_epoch(ep, E, m):
    print(f"Դարաշրջան {ep}/{E} — ուսուցման կորուստ {m['tl']:.4f} — ուսուցման {MET} {m['tm']:.4f} — վավերացման կորուստ {m['vl']:.4f} — վավերացման {MET} {m['vm']:.4f}")


def log_end(m):
    print(f"Ուսուցումն ավարտված է ({m['el']:.1f} վ)։ Վերջնական վավերացման {MET}՝ {m['vm']:.4f}")

gen = torch.Generator().manual_seed(2)
x_train = torch.rand(N_TRAIN, N_ELEM, generator=gen)
y_train = torch.argsort(x_train, dim=1)
x_val = torch.rand(640, N_ELEM, generator=gen)
y_val = torch.argsort(x_val, dim=1)


class PointerNet(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.enc = nn.GRU(1, h, batch_first=True)
        self.dec = nn.GRUCell(1, h)
        self.w1 = nn.Linear(h, h, bias=False)
        self.w2 = nn.Linear(h, h)
        self.v = nn.Linear(h, 1, bias=False)
        self.drop = nn.Dropout(DROPOUT)

    def forward(self, x, y):
        e, h = self.enc(x.unsqueeze(-1))
        e, h = self.drop(e), h[0]
        ek = self.w1(e)
        inp = torch.full((x.shape[0], 1), -1.0)
        mask = torch.zeros_like(x, dtype=torch.bool)
        rows = torch.arange(x.shape[0])
        out = []
        for t in range(N_ELEM):
            h = self.dec(inp, h)
            s = self.v(torch.tanh(ek + self.w2(h).unsqueeze(1))).squeeze(-1)
            out.append(s.masked_fill(mask, -1e9))
            mask = mask.clone()
            mask[rows, y[:, t]] = True
            inp = x[rows, y[:, t]].unsqueeze(1)
        return torch.stack(out, 1)


model = PointerNet(HID)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
steps = N_TRAIN // BATCH
NTR, NVA, NVB = N_TRAIN, len(x_val), len(x_val) // 128
n_params = sum(p.numel() for p in model.parameters())
log_start(dict(name=NAME, n_params=n_params, n_train=N_TRAIN, n_val=len(x_val), lr=LR, batch=BATCH, epochs=EPOCHS,
               n_layers=7))
gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, acc = 0.0, 0.0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        xb, yb = x_train[idx], y_train[idx]
        logits = model(xb, yb)
        loss = F.cross_entropy(logits.reshape(-1, N_ELEM), yb.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item()
        acc += (logits.argmax(-1) == yb).float().mean().item()
        log_step(epoch, i + 1, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        logits = model(x_val, y_val)
        vl = F.cross_entropy(logits.reshape(-1, N_ELEM), y_val.reshape(-1)).item()
        va = (logits.argmax(-1) == y_val).float().mean().item()
    m = dict(tl=tot / steps, tm=acc / steps, vl=vl, vm=va, lr=optimizer.param_groups[0]["lr"], el=time.time() - t0,
             gstep=gstep, ep_s=time.time() - te)
    log_epoch(epoch, EPOCHS, m)
log_end(m)
