# Graph classification in miniature, after running PyG's proteins_diff_pool.py-style example on a small dataset:
# 360 synthetic PROTEINS-like graphs (12-30 nodes, 3 one-hot node labels, random contact edges), 2 classes that differ
# only weakly (class 1 has a few more type-2 nodes and slightly denser type-2 neighbourhoods; 15% of labels flipped),
# 10% / 10% validation / test split. Dense GCN stack (3 GCN layers of 128 units with ReLU, sum + mean readout, MLP
# head 256-128-2), no dropout, no weight decay, no batch norm, Adam lr 1e-3, batch 20, 150 epochs, prints the
# example's epoch line (train loss, val acc, test acc) plus train accuracy and val loss.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(359)
MAXN = 30


def make_graph(y):
    n = int(torch.randint(12, MAXN + 1, (1,), generator=g))
    p2 = 0.30 + 0.10 * y
    t = torch.multinomial(torch.tensor([0.45, 0.55 - p2, p2]).clamp(min=0.05), n, replacement=True, generator=g)
    x = F.one_hot(t, 3).float()
    pos = torch.rand(n, 2, generator=g)
    d = torch.cdist(pos, pos)
    both2 = (t[:, None] == 2) & (t[None, :] == 2)
    thr = 0.28 + 0.05 * y * both2.float()
    a = ((d < thr) & ~torch.eye(n, dtype=torch.bool)).float()
    X = torch.zeros(MAXN, 3)
    A = torch.zeros(MAXN, MAXN)
    M = torch.zeros(MAXN)
    X[:n], A[:n, :n], M[:n] = x, a, 1
    return X, A, M


N = 360
ys = torch.randint(0, 2, (N,), generator=g)
Xs, As, Ms = zip(*[make_graph(int(y)) for y in ys])
Xs, As, Ms = torch.stack(Xs), torch.stack(As), torch.stack(Ms)
flip = torch.rand(N, generator=g) < 0.15
ys = torch.where(flip, 1 - ys, ys)
perm = torch.randperm(N, generator=g)
n10 = N // 10
test_idx, val_idx, train_idx = perm[:n10], perm[n10:2 * n10], perm[2 * n10:]


class DenseGCN(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.lin = nn.Linear(i, o)

    def forward(self, x, adj, mask):
        a = adj + torch.eye(adj.size(-1)) * mask[:, :, None]
        deg = a.sum(-1).clamp(min=1)
        dinv = deg.pow(-0.5)
        a = dinv[:, :, None] * a * dinv[:, None, :]
        return (a @ self.lin(x)) * mask[:, :, None]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.c2, self.c3 = DenseGCN(3, 128), DenseGCN(128, 128), DenseGCN(128, 128)
        self.head = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 2))

    def forward(self, x, adj, mask):
        h = F.relu(self.c1(x, adj, mask))
        h = F.relu(self.c2(h, adj, mask))
        h = F.relu(self.c3(h, adj, mask))
        s = h.sum(1)
        m = s / mask.sum(1, keepdim=True)
        return self.head(torch.cat([s, m], 1))


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)


def run_eval(idx):
    model.eval()
    with torch.no_grad():
        out = model(Xs[idx], As[idx], Ms[idx])
    return F.cross_entropy(out, ys[idx]).item(), (out.argmax(1) == ys[idx]).float().mean().item()


for epoch in range(1, 151):
    model.train()
    p = train_idx[torch.randperm(len(train_idx), generator=g)]
    tot = 0.0
    for b in range(0, len(p), 20):
        bi = p[b:b + 20]
        opt.zero_grad()
        loss = F.cross_entropy(model(Xs[bi], As[bi], Ms[bi]), ys[bi])
        loss.backward()
        opt.step()
        tot += loss.item() * len(bi)
    _, tr_acc = run_eval(train_idx)
    vl, va = run_eval(val_idx)
    _, ta = run_eval(test_idx)
    if epoch % 5 == 0 or epoch <= 3:
        print('Epoch: {:03d}, Train Loss: {:.7f}, Train Acc: {:.7f}, Val Loss: {:.7f}, Val Acc: {:.7f}, Test Acc: {:.7f}'
              .format(epoch, tot / len(train_idx), tr_acc, vl, va, ta))
