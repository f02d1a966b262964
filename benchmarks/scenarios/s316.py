# keras-language-modeling style knowledge-base triple model in miniature: entities described by 24-d feature
# vectors are embedded by a shared dense encoder, relations by a 64x64 matrix, score = cosine(enc(h) @ W_r,
# enc(t)), loss = max(0, margin - sim(pos_triple) + sim(neg_triple)) with margin 0.05 and one random-tail
# negative per positive, Adam 3e-3, batch 64, 20 epochs. Also reports ranking quality on held-out triples
# (tail rank among all 300 entities: MRR, Hits@10). Prints a Keras-like line per epoch; writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(316)
E, R, Z = 300, 8, 24
z = F.normalize(torch.randn(E, Z, generator=g), dim=1)
rot = [torch.linalg.qr(torch.randn(Z, Z, generator=g))[0] for _ in range(R)]
feats = z + 0.15 * torch.randn(E, Z, generator=g)
triples = []
for r in range(R):
    tgt = (z @ rot[r].T) @ z.T                       # tail = most similar entity to the rotated head
    tails = tgt.topk(3, 1).indices
    for h in range(E):
        for t in tails[h].tolist():
            if t != h:
                triples.append((h, r, t))
triples = torch.tensor(triples)[torch.randperm(len(triples), generator=g)]
nva = len(triples) // 10
val, train = triples[:nva], triples[nva:]
print(f'{len(train)} training triples, {len(val)} validation triples')

enc = nn.Sequential(nn.Linear(Z, 128), nn.Tanh(), nn.Linear(128, 64))
rel = nn.Parameter(torch.eye(64).repeat(R, 1, 1) + 0.01 * torch.randn(R, 64, 64, generator=g))
opt = torch.optim.Adam(list(enc.parameters()) + [rel], lr=3e-3)
margin = 0.05


def sims(h, r, t):
    return F.cosine_similarity(torch.bmm(enc(feats[h]).unsqueeze(1), rel[r]).squeeze(1), enc(feats[t]), dim=-1)


def hinge(tr):
    neg = torch.randint(0, E, (len(tr),), generator=g)
    return F.relu(margin - sims(tr[:, 0], tr[:, 1], tr[:, 2]) + sims(tr[:, 0], tr[:, 1], neg)).mean()


rows = []
for epoch in range(1, 21):
    p = train[torch.randperm(len(train), generator=g)]; tl, nb = 0.0, 0
    for b in range(0, len(p), 64):
        loss = hinge(p[b:b + 64])
        opt.zero_grad(); loss.backward(); opt.step(); tl += loss.item(); nb += 1
    with torch.no_grad():
        vl = hinge(val).item()
        q = F.normalize(torch.bmm(enc(feats[val[:, 0]]).unsqueeze(1), rel[val[:, 1]]).squeeze(1), dim=1)
        allE = F.normalize(enc(feats), dim=1)
        sc = q @ allE.T
        rank = (sc > sc.gather(1, val[:, 2:3])).sum(1) + 1
        mrr, h10 = (1.0 / rank.float()).mean().item(), (rank <= 10).float().mean().item()
    rows.append(dict(epoch=epoch, loss=tl / nb, val_loss=vl, val_mrr=mrr, val_hits10=h10))
    print(f'Epoch {epoch}/20 - loss: {tl / nb:.4f} - val_loss: {vl:.4f} - val MRR: {mrr:.4f} - val Hits@10: {h10:.4f}')
with open('metrics.csv', 'w', newline='') as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0]))
    wr.writeheader(); wr.writerows(rows)
