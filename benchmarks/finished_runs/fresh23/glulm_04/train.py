"""Gated convolutional language model (GLU conv LM, Dauphin-style) on synthetic token streams: a 24-symbol
second-order Markov source where every (prev2, prev1) context has three likely successors (probabilities 0.6/0.25/0.15)
plus 5% uniform noise, sequences of 33 tokens. Model: 32-d token embeddings, three residual causal conv blocks (kernel 4,
left padding only, conv to 2x64 channels then F.glu), a linear output layer. Cross-entropy next-token loss, SGD with
momentum 0.9 and gradient-norm clipping. Metric: validation perplexity (lower is better; the source entropy gives a
floor near 3.36)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "glulm"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, CLIP = 8.0, 32, 10, 2000, 400, 0.25
MET = "ppl"
HIGHER = False

def log_start(info):
    print("srun: job 48213 queued and waiting for resources")
    print("srun: job 48213 has been allocated resources")
    print(f"0: rank 0/1 on node cpu-017, model={info['name']} params={info['n_params']} bs={info['batch']} lr={info['lr']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    if (i + 1) % 21 == 0:
        print(f"0: [ep {ep}/{EPOCHS}] it {i + 1}/{n} loss {loss:.4f} lr {lr:.3g}")


def log_epoch(ep, E, m):
    print(f"0: == epoch {ep} done: train_loss {m['tl']:.4f} | val_loss {m['vl']:.4f} | val_{MET} {m['vm']:.3f} | {m['sec']:.1f}s")


def log_end(m):
    print(f"0: finished in {m['el']:.1f}s, final val_{MET} {m['vm']:.3f}")


V, L, C, K = 24, 33, 64, 4

gen = torch.Generator().manual_seed(11)
succ = torch.stack([torch.randperm(V, generator=gen)[:3] for _ in range(V * V)])


def make(n):
    seq = torch.zeros(n, L, dtype=torch.long)
    seq[:, :2] = torch.randint(0, V, (n, 2), generator=gen)
    for t in range(2, L):
        ctx = seq[:, t - 2] * V + seq[:, t - 1]
        u = torch.rand(n, generator=gen)
        pick = torch.where(u < 0.6, 0, torch.where(u < 0.85, 1, 2))
        nxt = succ[ctx, pick]
        noise = torch.rand(n, generator=gen) < 0.05
        seq[:, t] = torch.where(noise, torch.randint(0, V, (n,), generator=gen), nxt)
    return seq


train_seq = make(N_TRAIN)
val_seq = make(N_VAL)


class GLUBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(C, 2 * C, K)

    def forward(self, h):
        return h + F.glu(self.conv(F.pad(h, (K - 1, 0))), dim=1)


class GatedConvLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 32)
        self.proj = nn.Conv1d(32, C, 1)
        self.blocks = nn.Sequential(*[GLUBlock() for _ in range(3)])
        self.out = nn.Linear(C, V)

    def forward(self, x):
        h = self.proj(self.emb(x).transpose(1, 2))
        h = self.blocks(h)
        return self.out(h.transpose(1, 2))


model = GatedConvLM()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
steps = math.ceil(N_TRAIN / BATCH)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "batch": BATCH, "lr": LR, "n_train": N_TRAIN, "n_val": N_VAL})
t0 = time.time()
gstep = 0
for ep in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot = 0.0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        seq = train_seq[idx]
        logits = model(seq[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, V), seq[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        log_step(ep, i, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    lr_now = optimizer.param_groups[0]["lr"]
    model.eval()
    with torch.no_grad():
        logits = model(val_seq[:, :-1])
        vl = F.cross_entropy(logits.reshape(-1, V), val_seq[:, 1:].reshape(-1)).item()
        va = math.exp(min(vl, 50.0))
    tl = tot / N_TRAIN
    log_epoch(ep, EPOCHS, {"tl": tl, "tm": math.exp(min(tl, 50.0)), "vl": vl, "vm": va,
                           "lr": lr_now, "el": time.time() - t0, "sec": time.time() - te, "gstep": gstep})
log_end({"el": time.time() - t0, "gstep": gstep, "ep": EPOCHS, "vm": va, "vl": vl, "n_train": N_TRAIN})
