"""Graph auto-encoder (Kipf & Welling GAE) for link prediction on a featureless synthetic graph. The graph is
a stochastic block model (8 communities); nodes carry no input features, so each node gets a learned embedding
that a two-layer GCN (symmetric-normalised adjacency with self-loops, built from the training edges only) refines;
an inner-product decoder scores node pairs. 85% of the edges are used for message passing and as positives, 5% are
held out for validation (scored against a fixed set of non-edges) and 10% are kept aside. Each epoch is one
full-graph step on the BCE-with-logits loss with freshly sampled negative pairs; validation reports ROC-AUC and AP."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
CFG = dict(epochs=200, lr=0.01, emb_dim=32, hidden=64, out_dim=16, dropout=0.0, n_nodes=400, n_blocks=8,
           p_in=0.12, p_out=0.004, log_every=5)

G, Y, C, B, R = "\033[32m", "\033[33m", "\033[36m", "\033[1m", "\033[0m"


def log_info(msg):
    print(f"{C}[info]{R} {msg}")


def progress(it, epoch, n_epochs, n):
    return it


def on_step(epoch, n_epochs, i, n, loss, lr, gstep, total):
    pass


def log_epoch(epoch, n_epochs, m, lr):
    print(f"{B}{G}epoch {epoch:>3}/{n_epochs}{R} " + " ".join(f"{Y}{k}{R}={v:.4f}" for k, v in m.items()) + f" {Y}lr{R}={lr:.2e}")


def log_end(summary):
    print(f"{B}done{R} " + " ".join(f"{k}={v}" for k, v in summary.items()))


def make_graph(g):
    n, k = CFG["n_nodes"], CFG["n_blocks"]
    block = torch.arange(n) % k
    same = block.unsqueeze(0) == block.unsqueeze(1)
    p = torch.where(same, torch.tensor(CFG["p_in"]), torch.tensor(CFG["p_out"]))
    upper = torch.triu(torch.rand(n, n, generator=g) < p, diagonal=1)
    return upper.nonzero().t()


def split_edges(edges, g):
    m = edges.shape[1]
    perm = torch.randperm(m, generator=g)
    n_val, n_test = int(0.05 * m), int(0.10 * m)
    val = edges[:, perm[:n_val]]
    test = edges[:, perm[n_val:n_val + n_test]]
    train = edges[:, perm[n_val + n_test:]]
    return train, val, test


def sample_non_edges(n_nodes, count, forbid, g):
    out = []
    while len(out) < count:
        i = torch.randint(0, n_nodes, (count,), generator=g)
        j = torch.randint(0, n_nodes, (count,), generator=g)
        for a, b in zip(i.tolist(), j.tolist()):
            if a != b and (min(a, b), max(a, b)) not in forbid:
                out.append((a, b))
    return torch.tensor(out[:count]).t()


def norm_adj(edges, n):
    a = torch.zeros(n, n)
    a[edges[0], edges[1]] = 1.0
    a[edges[1], edges[0]] = 1.0
    a = a + torch.eye(n)
    d = a.sum(1).pow(-0.5)
    return d.unsqueeze(1) * a * d.unsqueeze(0)


class GCNLayer(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.lin = nn.Linear(d_in, d_out, bias=False)
        nn.init.xavier_uniform_(self.lin.weight)

    def forward(self, x, adj):
        return adj @ self.lin(x)


class GAE(nn.Module):
    def __init__(self, n_nodes, emb_dim, hidden, out_dim, dropout):
        super().__init__()
        self.node_emb = nn.Parameter(torch.randn(n_nodes, emb_dim) * 0.1)
        self.gcn1 = GCNLayer(emb_dim, hidden)
        self.gcn2 = GCNLayer(hidden, out_dim)
        self.dropout = dropout

    def encode(self, adj):
        h = F.relu(self.gcn1(self.node_emb, adj))
        h = F.dropout(h, self.dropout, self.training)
        z = self.gcn2(h, adj)
        return z

    def decode(self, z, pairs):
        return (z[pairs[0]] * z[pairs[1]]).sum(-1)


def auc_ap(pos, neg):
    scores = torch.cat([pos, neg])
    labels = torch.cat([torch.ones_like(pos), torch.zeros_like(neg)])
    order = torch.argsort(scores, descending=True)
    l = labels[order]
    tp = torch.cumsum(l, 0)
    ap = (tp / torch.arange(1, len(l) + 1) * l).sum() / l.sum()
    diff = pos.unsqueeze(1) - neg.unsqueeze(0)
    auc = (diff > 0).float().mean() + 0.5 * (diff == 0).float().mean()
    return auc.item(), ap.item()


g = torch.Generator().manual_seed(1)
edges = make_graph(g)
train_e, val_e, test_e = split_edges(edges, g)
all_set = set((min(a, b), max(a, b)) for a, b in edges.t().tolist())
val_neg = sample_non_edges(CFG["n_nodes"], val_e.shape[1], all_set, g)
adj = norm_adj(train_e, CFG["n_nodes"])
train_set = set((min(a, b), max(a, b)) for a, b in train_e.t().tolist())
_N_UPD, _BS = 1, train_e.shape[1]

model = GAE(CFG["n_nodes"], CFG["emb_dim"], CFG["hidden"], CFG["out_dim"], CFG["dropout"])
optimizer = torch.optim.Adam(list(model.gcn1.parameters()) + list(model.gcn2.parameters()), lr=CFG["lr"])
log_info(f"GAE link prediction: {CFG['n_nodes']} nodes, {edges.shape[1]} edges (train {train_e.shape[1]}, val "
         f"{val_e.shape[1]}, test {test_e.shape[1]}) | {sum(p.numel() for p in model.parameters())} params")


def evaluate():
    model.eval()
    with torch.no_grad():
        z = model.encode(adj)
        pos, neg = model.decode(z, val_e), model.decode(z, val_neg)
        loss = F.binary_cross_entropy_with_logits(torch.cat([pos, neg]),
                                                  torch.cat([torch.ones_like(pos), torch.zeros_like(neg)])).item()
        auc, ap = auc_ap(pos, neg)
    return loss, auc, ap


t_start = time.time()
neg_g = torch.Generator().manual_seed(2)
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    bar = progress(range(1), epoch, CFG["epochs"], 1)
    for i in bar:
        neg = sample_non_edges(CFG["n_nodes"], train_e.shape[1], train_set, neg_g)
        optimizer.zero_grad()
        z = model.encode(adj)
        logits = torch.cat([model.decode(z, train_e), model.decode(z, neg)])
        labels = torch.cat([torch.ones(train_e.shape[1]), torch.zeros(neg.shape[1])])
        loss = F.binary_cross_entropy_with_logits(logits, labels)
        loss.backward()
        optimizer.step()
        on_step(epoch, CFG["epochs"], i, 1, loss.item(), optimizer.param_groups[0]["lr"], epoch, CFG["epochs"])
    if epoch % CFG["log_every"] == 0 or epoch == 1:
        val_loss, val_auc, val_ap = evaluate()
        log_epoch(epoch, CFG["epochs"], {"loss": loss.item(), "val_loss": val_loss, "val_auc": val_auc, "val_ap": val_ap},
                  optimizer.param_groups[0]["lr"])

log_end({"final_val_auc": round(val_auc, 4), "final_val_ap": round(val_ap, 4), "time_s": round(time.time() - t_start, 1)})
