# OpeNTF-style end-to-end GNN for team formation in miniature: a bipartite team-expert graph (120 teams,
# 80 experts, 4-6 experts per team), node features -> 2 mean-aggregation graph-conv layers, and the encoder
# applies ReLU after EVERY conv, including the last one that produces the 16-d node embeddings:
#     for conv in self.encoder: x = F.relu(conv(x, adj))
# Link logits = <team_emb, expert_emb>, BCE-with-logits on observed memberships vs 3 sampled non-members
# per positive, Adam 1e-2, 60 epochs. Writes metrics.jsonl (loss, AUC, fraction of exactly-zero embedding
# entries) and prints a line per epoch.
import json
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(298)

T, E, D_IN, D = 120, 80, 24, 16
skill_e = torch.randint(0, 6, (E,), generator=g)               # each expert has a skill group
team_need = torch.randint(0, 6, (T,), generator=g)              # each team needs mainly one group
edges = []
for t in range(T):
    pool = (skill_e == team_need[t]).nonzero().flatten()
    k = int(torch.randint(4, 7, (1,), generator=g))
    pick = pool[torch.randperm(len(pool), generator=g)[:k]]
    edges += [(t, int(e)) for e in pick]
edges = torch.tensor(edges)
perm = torch.randperm(len(edges), generator=g)
n_val = len(edges) // 5
val_pos, tr_pos = edges[perm[:n_val]], edges[perm[n_val:]]

x_team = torch.randn(T, D_IN, generator=g) + F.one_hot(team_need, D_IN).float() * 2
x_exp = torch.randn(E, D_IN, generator=g) + F.one_hot(skill_e, D_IN).float() * 2
N = T + E
A = torch.zeros(N, N)
A[tr_pos[:, 0], T + tr_pos[:, 1]] = 1
A[T + tr_pos[:, 1], tr_pos[:, 0]] = 1
A = A + torch.eye(N)
A = A / A.sum(1, keepdim=True)
X = torch.cat([x_team, x_exp])


class GraphConv(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.lin = nn.Linear(i, o)

    def forward(self, x, adj):
        return self.lin(adj @ x)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.ModuleList([GraphConv(D_IN, 32), GraphConv(32, D)])

    def forward(self, x, adj):
        for conv in self.encoder:
            x = F.relu(conv(x, adj))
        return x


def sample_neg(pos, k):
    t = pos[:, 0].repeat(k)
    e = torch.randint(0, E, (len(t),), generator=g)
    return torch.stack([t, e], 1)


def auc(pos_s, neg_s):
    s = torch.cat([pos_s, neg_s]); lab = torch.cat([torch.ones_like(pos_s), torch.zeros_like(neg_s)])
    order = s.argsort()
    ranks = torch.empty_like(s); ranks[order] = torch.arange(1, len(s) + 1, dtype=s.dtype)
    # ties get averaged ranks
    for v in s.unique():
        m = s == v
        if m.sum() > 1:
            ranks[m] = ranks[m].mean()
    n1, n0 = len(pos_s), len(neg_s)
    return float((ranks[lab == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


model = Encoder()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
val_neg = sample_neg(val_pos, 3)
out = open('metrics.jsonl', 'w')
for epoch in range(1, 61):
    model.train()
    z = model(X, A)
    neg = sample_neg(tr_pos, 3)
    pairs = torch.cat([tr_pos, neg])
    y = torch.cat([torch.ones(len(tr_pos)), torch.zeros(len(neg))])
    logits = (z[pairs[:, 0]] * z[T + pairs[:, 1]]).sum(1)
    loss = F.binary_cross_entropy_with_logits(logits, y)
    opt.zero_grad(); loss.backward(); opt.step()
    model.eval()
    with torch.no_grad():
        z = model(X, A)
        vp = (z[val_pos[:, 0]] * z[T + val_pos[:, 1]]).sum(1)
        vn = (z[val_neg[:, 0]] * z[T + val_neg[:, 1]]).sum(1)
        vloss = F.binary_cross_entropy_with_logits(torch.cat([vp, vn]), torch.cat([torch.ones_like(vp), torch.zeros_like(vn)])).item()
        zero_frac = (z == 0).float().mean().item()
        vauc = auc(vp, vn)
    rec = dict(epoch=epoch, train_loss=round(loss.item(), 6), val_loss=round(vloss, 6), val_auc=round(vauc, 4),
               emb_zero_frac=round(zero_frac, 4))
    out.write(json.dumps(rec) + '\n')
    print(f"epoch {epoch:3d} | train BCE {loss.item():.4f} | valid BCE {vloss:.4f} | valid AUC {vauc:.3f} | zero embedding entries {100 * zero_frac:.1f}%")
out.close()
