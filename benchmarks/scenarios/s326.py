# Triplet (BPR) recommender in miniature, after the Keras triplet_recommendations example: user and item
# embeddings (dim 32), score = dot(user, item), trained on (user, positive item, sampled negative item) triplets
# from synthetic MovieLens-like implicit feedback (600 users, 800 items, ~40k interactions with popularity skew
# and taste clusters), Adam lr 0.12, batch 256, 12 epochs. The BPR loss is written out by hand from the paper.
# Prints the mean training loss, the max |score difference| and test AUC per epoch, writes metrics.csv.
import csv
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(326)
U, I, D = 600, 800, 32

taste_u = torch.randn(U, 8, generator=g) * 1.5
taste_i = torch.randn(I, 8, generator=g) * 1.5
pop = torch.linspace(2.0, -2.0, I)
logits = taste_u @ taste_i.T / 8 ** 0.5 + pop
probs = torch.sigmoid(logits - 3.0)
inter = torch.rand(U, I, generator=g) < probs
pairs = inter.nonzero()
perm = torch.randperm(len(pairs), generator=g)
test = pairs[perm[:3000]]; train = pairs[perm[3000:]]
print(f'{len(pairs)} interactions, {len(train)} train, {len(test)} test')


class TripletModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.user = nn.Embedding(U, D)
        self.item = nn.Embedding(I, D)

    def forward(self, u, i, j):
        uu = self.user(u)
        return (uu * self.item(i)).sum(-1) - (uu * self.item(j)).sum(-1)


def bpr_triplet_loss(diff):
    return (1.0 - torch.log(torch.sigmoid(diff))).mean()


def auc(model, pairs):
    with torch.no_grad():
        j = torch.randint(0, I, (len(pairs),), generator=g)
        d = model(pairs[:, 0], pairs[:, 1], j)
    return (d > 0).float().mean().item()


model = TripletModel()
opt = torch.optim.Adam(model.parameters(), lr=0.12)
rows = []
for epoch in range(1, 13):
    p = torch.randperm(len(train), generator=g)
    losses, maxdiff = [], 0.0
    for k in range(0, len(train), 256):
        b = train[p[k:k + 256]]
        neg = torch.randint(0, I, (len(b),), generator=g)
        diff = model(b[:, 0], b[:, 1], neg)
        loss = bpr_triplet_loss(diff)
        opt.zero_grad(); loss.backward(); opt.step()
        losses.append(loss.item()); maxdiff = max(maxdiff, diff.detach().abs().max().item())
    ml = sum(losses) / len(losses)
    r = dict(epoch=epoch, train_loss=ml, max_abs_diff=maxdiff, test_auc=auc(model, test))
    rows.append(r)
    print(f"epoch {epoch:2d} train loss {ml:.4f} | max |score diff| {maxdiff:.1f} | test AUC {r['test_auc']:.3f}")
with open('metrics.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
