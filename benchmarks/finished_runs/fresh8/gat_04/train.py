"""Graph Attention Network (Velickovic et al. 2018), dense implementation in the style of pyGAT, for
semi-supervised node classification on a synthetic citation-like graph: 600 nodes in 4 communities
(stochastic block model), sparse binary bag-of-words features (row-normalised), 20 labelled nodes per class.
Full-batch training; masked attention over the adjacency with self-loops."""
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
CFG = dict(epochs=100, lr=0.3, weight_decay=0.0005, hidden=8, nb_heads=8, dropout=0.6, alpha=0.2)
import logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s [%(name)s] %(message)s")
_log = logging.getLogger("train")


def log_info(msg):
    _log.info(msg)


def progress(it, epoch, n_epochs, n_batches):
    return it


def on_batch(bar, loss):
    pass


def log_epoch(epoch, n_epochs, m, lr):
    _log.info("Epoch %d/%d - %s - lr %.2e", epoch, n_epochs, " - ".join(f"{k} {v:.4f}" for k, v in m.items()), lr)


def log_end(summary):
    _log.info("finished: %s", summary)



def load_data(n=600, n_cls=4, n_feat=200, seed=7):
    g = torch.Generator().manual_seed(seed)
    labels = torch.arange(n) % n_cls
    labels = labels[torch.randperm(n, generator=g)]
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    prob = torch.where(same, torch.tensor(0.028), torch.tensor(0.005))
    upper = torch.triu((torch.rand(n, n, generator=g) < prob).float(), diagonal=1)
    adj = upper + upper.t()
    word_p = torch.full((n_cls, n_feat), 0.02)
    for c in range(n_cls):
        word_p[c, c * 40:(c + 1) * 40] = 0.09
    features = (torch.rand(n, n_feat, generator=g) < word_p[labels]).float()
    features = features / features.sum(1, keepdim=True).clamp(min=1)
    adj = adj + torch.eye(n)
    idx = torch.randperm(n, generator=g)
    idx_train = torch.cat([idx[labels[idx] == c][:20] for c in range(n_cls)])
    rest = idx[~torch.isin(idx, idx_train)]
    return adj, features, labels, idx_train, rest[:200], rest[200:]


class GraphAttentionLayer(nn.Module):
    def __init__(self, in_features, out_features, dropout, alpha, concat=True):
        super().__init__()
        self.dropout, self.concat = dropout, concat
        self.W = nn.Parameter(torch.empty(in_features, out_features))
        nn.init.xavier_uniform_(self.W.data, gain=1.414)
        self.a = nn.Parameter(torch.empty(2 * out_features, 1))
        nn.init.xavier_uniform_(self.a.data, gain=1.414)
        self.leakyrelu = nn.LeakyReLU(alpha)
        self.out_features = out_features

    def forward(self, h, adj):
        Wh = h @ self.W
        e = self.leakyrelu(Wh @ self.a[:self.out_features] + (Wh @ self.a[self.out_features:]).T)
        attention = torch.where(adj > 0, e, torch.full_like(e, -9e15))
        attention = F.softmax(attention, dim=1)
        attention = F.dropout(attention, self.dropout, training=self.training)
        h_prime = attention @ Wh
        return F.elu(h_prime) if self.concat else h_prime


class GAT(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout, alpha, nheads):
        super().__init__()
        self.dropout = dropout
        self.attentions = nn.ModuleList([GraphAttentionLayer(nfeat, nhid, dropout, alpha) for _ in range(nheads)])
        self.out_att = GraphAttentionLayer(nhid * nheads, nclass, dropout, alpha, concat=False)

    def forward(self, x, adj):
        x = F.dropout(x, self.dropout, training=self.training)
        x = torch.cat([att(x, adj) for att in self.attentions], dim=1)
        x = F.dropout(x, self.dropout, training=self.training)
        return F.log_softmax(F.elu(self.out_att(x, adj)), dim=1)


def accuracy(output, labels):
    return (output.argmax(1) == labels).float().mean().item()


adj, features, labels, idx_train, idx_val, idx_test = load_data()
model = GAT(features.shape[1], CFG["hidden"], int(labels.max()) + 1, CFG["dropout"], CFG["alpha"], CFG["nb_heads"])
optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"], weight_decay=CFG["weight_decay"])
log_info(f"nodes {adj.shape[0]} edges {int((adj.sum() - adj.shape[0]) / 2)} features {features.shape[1]} | "
         f"train {len(idx_train)} val {len(idx_val)} test {len(idx_test)} | heads {CFG['nb_heads']} hidden {CFG['hidden']}")

t_total = time.time()
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    acc_train = accuracy(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()

    model.eval()
    with torch.no_grad():
        output = model(features, adj)
    loss_val = F.nll_loss(output[idx_val], labels[idx_val]).item()
    acc_val = accuracy(output[idx_val], labels[idx_val])
    log_epoch(epoch, CFG["epochs"], {"loss": loss_train.item(), "acc": acc_train, "val_loss": loss_val,
                                     "val_acc": acc_val}, optimizer.param_groups[0]["lr"])

model.eval()
with torch.no_grad():
    output = model(features, adj)
log_end({"epochs": CFG["epochs"], "test_loss": round(F.nll_loss(output[idx_test], labels[idx_test]).item(), 4),
         "test_acc": round(accuracy(output[idx_test], labels[idx_test]), 4), "time_s": round(time.time() - t_total, 1)})
