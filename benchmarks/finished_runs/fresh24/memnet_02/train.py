"""End-to-end memory network (MemN2N, Sukhbaatar et al.) on synthetic bAbI-style "where is X?" stories: 8 sentences
per story, each "<person> <verb> <location>" (5 persons, 3 synonymous verbs, 6 locations), question "where is
<person>", answer the location of that person's last move (stories always mention the asked person). Bag-of-words
sentence memories with position encoding plus a learned temporal embedding, 3 hops with adjacent weight tying, 32-d
embeddings, softmax over the 6 locations, cross-entropy, Adam. Metric: validation answer accuracy (chance 1/6)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "memnet"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, HOPS = 0.005, 8, 5, 4000, 600, 3
P, VB, LOC, S, D = 5, 3, 6, 8, 32
VOCAB = P + VB + LOC + 2

def _sb(level, cls, msg):
    t = time.time()
    ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int((t % 1) * 1000):03d}Z"
    print(f"{ts}  {level:>5} 4242 --- [memnet-trainer] [           main] {cls:<40} : {msg}")


def log_start(info):
    _sb("INFO", "c.e.memnet.MemNetTrainerApplication", f"Started MemNetTrainerApplication with {info['n_params']} parameters")


def log_step(ep, i, n, loss, lr, gstep, el):
    if gstep % 100 == 0:
        _sb("DEBUG", "c.e.memnet.training.StepListener", f"step={gstep} loss={loss:.4f}")


def log_epoch(ep, E, m):
    _sb("INFO", "c.e.memnet.training.EpochListener", f"Epoch {ep}/{E} completed: loss={m['tl']:.4f}, acc={m['tm']:.4f}, valLoss={m['vl']:.4f}, valAcc={m['vm']:.4f}")


def log_end(m):
    _sb("INFO", "c.e.memnet.MemNetTrainerApplication", f"Training finished in {int(m['el'] * 1000)} ms, valAcc={m['vm']:.4f}")


gen = torch.Generator().manual_seed(5)


def make(n):
    who = torch.randint(0, P, (n, S), generator=gen)
    verb = torch.randint(0, VB, (n, S), generator=gen)
    loc = torch.randint(0, LOC, (n, S), generator=gen)
    q = torch.randint(0, P, (n,), generator=gen)
    pos = torch.randint(0, S, (n,), generator=gen)
    who[torch.arange(n), pos] = q
    story = torch.stack([who, P + verb, P + VB + loc], 2)
    mask = (who == q.unsqueeze(1)).float() * torch.arange(1, S + 1).float()
    last = mask.argmax(1)
    ans = loc[torch.arange(n), last]
    question = torch.stack([torch.full((n,), VOCAB - 2), torch.full((n,), VOCAB - 1), q], 1)
    return story, question, ans


s_train, q_train, a_train = make(N_TRAIN)
s_val, q_val, a_val = make(N_VAL)


def position_encoding(J, d):
    pe = torch.zeros(J, d)
    for j in range(1, J + 1):
        for k in range(1, d + 1):
            pe[j - 1, k - 1] = (1 - j / J) - (k / d) * (1 - 2 * j / J)
    return pe


PE = position_encoding(3, D)


class MemN2N(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.ModuleList([nn.Embedding(VOCAB, D) for _ in range(HOPS + 1)])
        self.temporal = nn.ParameterList([nn.Parameter(0.1 * torch.randn(S, D)) for _ in range(HOPS + 1)])
        for e in self.emb:
            nn.init.normal_(e.weight, std=0.1)
        self.out = nn.Linear(D, LOC)

    def forward(self, story, question):
        u = (self.emb[0](question) * PE).sum(1)
        for h in range(HOPS):
            m = (self.emb[h](story) * PE).sum(2) + self.temporal[h]
            c = (self.emb[h + 1](story) * PE).sum(2) + self.temporal[h + 1]
            p = F.softmax((m * u.unsqueeze(1)).sum(2), dim=1)
            u = u + (p.unsqueeze(2) * c).sum(1)
        return self.out(u)


model = MemN2N()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
steps = math.ceil(N_TRAIN / BATCH)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "batch": BATCH, "lr": LR, "n_train": N_TRAIN, "n_val": N_VAL, "epochs": EPOCHS})
t0 = time.time()
gstep = 0
for ep in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, corr = 0.0, 0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        logits = model(s_train[idx], q_train[idx])
        loss = F.cross_entropy(logits, a_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        corr += (logits.argmax(1) == a_train[idx]).sum().item()
        log_step(ep, i, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        lv = model(s_val, q_val)
        vl = F.cross_entropy(lv, a_val).item()
        vm = (lv.argmax(1) == a_val).float().mean().item()
    log_epoch(ep, EPOCHS, {"tl": tot / N_TRAIN, "tm": corr / N_TRAIN, "vl": vl, "vm": vm,
                           "lr": optimizer.param_groups[0]["lr"], "el": time.time() - t0, "sec": time.time() - te, "gstep": gstep})
log_end({"el": time.time() - t0, "gstep": gstep, "ep": EPOCHS, "vm": vm, "vl": vl, "n_train": N_TRAIN})
