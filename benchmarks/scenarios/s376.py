"""TransE link prediction in miniature (after ZichaoHuang/TransE: embedding size,
margin 4, L1 distance, Adam, uniform negative sampling, raw and filtered
evaluation printed as "MeanRank | filtered MeanRank | Hits@10 | filtered Hits@10").

Synthetic knowledge graph: 600 entities in 12 types, 16 relations, each
relation links heads of one type to several tails of another type through a
latent translation (many 1-to-N and N-to-N relations); 14000 train / 1000
valid / 1000 test triples.  dim 64, lr 3e-3, batch 512, 60 epochs, evaluation
on the test triples every 10 epochs (head and tail replacement).
"""
import numpy as np
import torch

torch.set_num_threads(1)
rng = np.random.RandomState(5)
torch.manual_seed(5)
NE, NR, T, D = 600, 16, 12, 64
etype = rng.randint(0, T, NE)
lat = rng.randn(NE, 8) + 3.0 * np.eye(8)[etype % 8] * (1 + etype // 8)[:, None]
triples = set()
rel_src = rng.randint(0, T, NR); rel_dst = rng.randint(0, T, NR)
rel_vec = rng.randn(NR, 8)
while len(triples) < 16000:
    r = rng.randint(NR)
    hs = np.where(etype == rel_src[r])[0]; ts = np.where(etype == rel_dst[r])[0]
    h = rng.choice(hs)
    score = -np.abs(lat[ts] - lat[h] - rel_vec[r]).sum(1)
    p = np.exp(score - score.max()); p /= p.sum()
    t = rng.choice(ts, p=0.7 * p + 0.3 / len(ts))
    if h != t:
        triples.add((h, r, t))
triples = np.array(sorted(triples)); rng.shuffle(triples)
train, valid, test = triples[:14000], triples[14000:15000], triples[15000:]
known = set(map(tuple, triples))
print('#entity: %d  #relation: %d  #train: %d  #valid: %d  #test: %d' % (NE, NR, len(train), len(valid), len(test)))

ent = torch.nn.Embedding(NE, D); rel = torch.nn.Embedding(NR, D)
b = 6 / np.sqrt(D)
torch.nn.init.uniform_(ent.weight, -b, b); torch.nn.init.uniform_(rel.weight, -b, b)
with torch.no_grad():
    rel.weight.data = torch.nn.functional.normalize(rel.weight.data, dim=1)
opt = torch.optim.Adam(list(ent.parameters()) + list(rel.parameters()), lr=3e-3)
margin = 4.0


def dist(h, r, t):
    return (ent(h) + rel(r) - ent(t)).abs().sum(-1)


def evaluate(data):
    ranks_raw, ranks_f = [], []
    with torch.no_grad():
        E = ent.weight
        for h, r, t in data:
            # tail
            d = (E[h] + rel.weight[r] - E).abs().sum(1).numpy()
            raw = (d < d[t]).sum() + 1
            mask = np.array([(h, r, e) in known and e != t for e in range(NE)])
            ranks_raw.append(raw); ranks_f.append(raw - (mask & (d < d[t])).sum())
            # head
            d = (E + rel.weight[r] - E[t]).abs().sum(1).numpy()
            raw = (d < d[h]).sum() + 1
            mask = np.array([(e, r, t) in known and e != h for e in range(NE)])
            ranks_raw.append(raw); ranks_f.append(raw - (mask & (d < d[h])).sum())
    rr, rf = np.array(ranks_raw), np.array(ranks_f)
    return rr.mean(), rf.mean(), (rr <= 10).mean(), (rf <= 10).mean()


tr = torch.from_numpy(train).long()
for epoch in range(1, 61):
    with torch.no_grad():
        ent.weight.data = torch.nn.functional.normalize(ent.weight.data, dim=1) * 1.0
    perm = torch.randperm(len(tr)); tot = 0.0
    for i in range(0, len(tr), 512):
        bt = tr[perm[i:i + 512]]
        h, r, t = bt[:, 0], bt[:, 1], bt[:, 2]
        corrupt = torch.randint(0, NE, (len(bt),))
        head_side = torch.rand(len(bt)) < 0.5
        h2 = torch.where(head_side, corrupt, h); t2 = torch.where(head_side, t, corrupt)
        loss = torch.relu(margin + dist(h, r, t) - dist(h2, r, t2)).sum()
        opt.zero_grad(); loss.backward(); opt.step(); tot += loss.item()
    print('epoch %d, loss: %.4f' % (epoch, tot))
    if epoch % 10 == 0:
        mr, fmr, h10, fh10 = evaluate(test)
        print('MeanRank | filtered MeanRank | Hits@10 | filtered Hits@10')
        print('%.4f | %.5f | %.6f | %.6f' % (mr, fmr, h10, fh10))
