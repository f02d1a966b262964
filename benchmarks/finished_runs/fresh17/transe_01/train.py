"""TransE knowledge-graph embedding on a synthetic graph: 300 entities and 12 relations with hidden 8-d geometry; the
tail of (h, r) is the entity nearest to e_h + r_r, so relations really are translations. 6000 training triples and
600 held-out triples with unseen (head, relation) pairs. 32-d embeddings, L2 distance, margin ranking loss
(margin 1.0) against one corrupted tail per triple, entity embeddings renormalised to unit length after every step,
Adam; validation MRR (Hits@10 also computed) over all 400 candidate tails (raw setting)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
LR, BATCH, EPOCHS, DIM = 0.01, 128, 12, 32
MET = "mrr"


def log_start(n_params, n_tr, n_va, lr, batch, epochs):
    sys.stderr.write("INFO:pykeen.pipeline.api:Using device: cpu\n")
    sys.stderr.write(f"INFO:pykeen.training.training_loop:using stopper: <pykeen.stoppers.stopper.NopStopper object>\n")
    log_start.epochs = epochs


def log_step(epoch, i, n, loss, lr, gstep, el):
    pass


def log_epoch(epoch, epochs, tl, tm, vl, vm, lr, gstep, el):
    done = int(10 * epoch / epochs)
    prev = getattr(log_epoch, "prev", float("nan"))
    bar = "\u2588" * done + " " * (10 - done)
    rate = el / epoch
    sys.stderr.write(f"\rTraining epochs on cpu: {100 * epoch // epochs:3d}%|{bar}| {epoch}/{epochs} "
                     f"[00:{int(el):02d}<00:{int(rate * (epochs - epoch)):02d}, {rate:.2f}s/epoch, loss={tl:.4g}, prev_loss={prev:.4g}]")
    sys.stderr.flush()
    log_epoch.prev = tl
    log_epoch.hist = getattr(log_epoch, "hist", []) + [(epoch, tl, vl, tm, vm)]


def log_end(vm, el):
    sys.stderr.write("\n")
    sys.stderr.write("INFO:pykeen.evaluation.evaluator:Evaluation took 0.05s seconds\n")
    for e, tl, vl, tm, v in log_epoch.hist:
        print(f"epoch={e} loss={tl:.6f} validation.margin_loss={vl:.6f} training.mean_reciprocal_rank={tm:.4f} validation.both.realistic.inverse_harmonic_mean_rank={v:.4f}")
    print(f"both.realistic.inverse_harmonic_mean_rank: {vm:.4f}")
NE, NR, MARGIN = 400, 20, 1.0
gen = torch.Generator().manual_seed(2)
true_e = torch.randn(NE, 8, generator=gen)
true_r = torch.randn(NR, 8, generator=gen) * 0.8
pairs = torch.randperm(NE * NR, generator=gen)[:6600]
heads, rels = pairs // NR, pairs % NR
tails = torch.cdist(true_e[heads] + true_r[rels], true_e).argmin(1)
triples = torch.stack([heads, rels, tails], 1)
train, val = triples[:6000], triples[6000:]
val_neg = torch.randint(0, NE, (len(val),), generator=gen)


class TransE(nn.Module):
    def __init__(self, dim=DIM):
        super().__init__()
        self.ent = nn.Embedding(NE, dim)
        self.rel = nn.Embedding(NR, dim)
        nn.init.uniform_(self.ent.weight, -6 / math.sqrt(dim), 6 / math.sqrt(dim))
        nn.init.uniform_(self.rel.weight, -6 / math.sqrt(dim), 6 / math.sqrt(dim))
        with torch.no_grad():
            self.ent.weight.copy_(F.normalize(self.ent.weight, dim=1))

    def dist(self, h, r, t):
        return (self.ent(h) + self.rel(r) - self.ent(t)).norm(dim=1)


def evaluate(model, data):
    with torch.no_grad():
        q = model.ent(data[:, 0]) + model.rel(data[:, 1])
        d = torch.cdist(q, model.ent.weight)
        rank = (d < d.gather(1, data[:, 2:3])).sum(1) + 1
        return (1.0 / rank.float()).mean().item(), (rank <= 10).float().mean().item()


model = TransE()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
n_params = sum(p.numel() for p in model.parameters())
steps = (len(train) + BATCH - 1) // BATCH
log_start(n_params, len(train), len(val), LR, BATCH, EPOCHS)

gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    order = torch.randperm(len(train))
    tot_loss = 0.0
    for i in range(steps):
        batch = train[order[i * BATCH:(i + 1) * BATCH]]
        h, r, t = batch[:, 0], batch[:, 1], batch[:, 2]
        t_neg = torch.randint(0, NE, t.shape)
        optimizer.zero_grad()
        pos, neg = model.dist(h, r, t), model.dist(h, r, t_neg)
        loss = F.relu(MARGIN + pos - neg).mean()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            model.ent.weight.copy_(F.normalize(model.ent.weight, dim=1))
        gstep += 1
        tot_loss += loss.item() * len(batch)
        log_step(epoch, i + 1, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    with torch.no_grad():
        val_loss = F.relu(MARGIN + model.dist(val[:, 0], val[:, 1], val[:, 2])
                          - model.dist(val[:, 0], val[:, 1], val_neg)).mean().item()
    tr_mrr, tr_hits = evaluate(model, train[:600])
    val_mrr, val_hits = evaluate(model, val)
    log_epoch(epoch, EPOCHS, tot_loss / len(train), tr_mrr, val_loss, val_mrr,
              optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
log_end(val_mrr, time.time() - t0)
