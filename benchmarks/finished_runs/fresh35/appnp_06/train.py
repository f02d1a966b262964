"""APPNP node classifier on a synthetic stochastic-block-model graph.

Printing follows DGL's examples/pytorch/appnp/train.py (data statistics block, one
`Epoch ... | Time(s) ... | Loss ... | Accuracy ... | ETputs(KTEPS) ...` line per epoch, Test Accuracy).
"""
import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


def make_graph(n_nodes=1500, n_classes=5, n_feat=64, p_in=0.010, p_out=0.0025, seed=7):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_classes, n_nodes)
    same = labels[:, None] == labels[None, :]
    upper = np.triu(rng.random((n_nodes, n_nodes)) < np.where(same, p_in, p_out), 1)
    adj = (upper | upper.T).astype(np.float32)
    means = rng.normal(0, 1, (n_classes, n_feat))
    feats = 0.35 * means[labels] + rng.normal(0, 1, (n_nodes, n_feat))
    feats = (feats > 0.6).astype(np.float32)
    perm = rng.permutation(n_nodes)
    train_idx = np.concatenate([perm[labels[perm] == c][:20] for c in range(n_classes)])
    rest = rng.permutation(np.setdiff1d(perm, train_idx))
    masks = {}
    for name, idx in (('train', train_idx), ('val', rest[:500]), ('test', rest[500:1500])):
        m = np.zeros(n_nodes, dtype=bool)
        m[idx] = True
        masks[name] = torch.from_numpy(m)
    return adj, torch.from_numpy(feats), torch.from_numpy(labels).long(), masks


class APPNPConv(nn.Module):
    def __init__(self, adj, k, alpha, edge_drop):
        super().__init__()
        a = adj + np.eye(adj.shape[0], dtype=np.float32)          # add self loop
        d = a.sum(1) ** -0.5
        self.norm_adj = torch.from_numpy(d[:, None] * a * d[None, :]).to_sparse()
        self.k, self.alpha = k, alpha
        self.edge_drop = nn.Dropout(edge_drop)

    def forward(self, feat):
        feat_0 = feat
        for _ in range(self.k):
            feat = torch.sparse.mm(self.norm_adj, self.edge_drop(feat))
            feat = (1 - self.alpha) * feat + self.alpha * feat_0
        return feat


class APPNP(nn.Module):
    def __init__(self, adj, in_feats, hiddens, n_classes, activation, feat_drop, edge_drop, alpha, k):
        super().__init__()
        self.layers = nn.ModuleList()
        self.layers.append(nn.Linear(in_feats, hiddens[0]))
        for i in range(1, len(hiddens)):
            self.layers.append(nn.Linear(hiddens[i - 1], hiddens[i]))
        self.layers.append(nn.Linear(hiddens[-1], n_classes))
        self.activation = activation
        self.feat_drop = nn.Dropout(feat_drop) if feat_drop else (lambda x: x)
        self.propagate = APPNPConv(adj, k, alpha, edge_drop)

    def forward(self, features):
        h = self.feat_drop(features)
        h = self.activation(self.layers[0](h))
        for layer in self.layers[1:-1]:
            h = self.activation(layer(h))
        h = self.layers[-1](self.feat_drop(h))
        return self.propagate(h)


def evaluate(model, features, labels, mask):
    model.eval()
    with torch.no_grad():
        logits = model(features)
        logits = logits[mask]
        labels = labels[mask]
        _, indices = torch.max(logits, dim=1)
        correct = torch.sum(indices == labels)
        return correct.item() * 1.0 / len(labels)


def main(args):
    torch.manual_seed(args.seed)
    adj, features, labels, masks = make_graph()
    train_mask, val_mask, test_mask = masks['train'], masks['val'], masks['test']
    n_edges = int(adj.sum())
    n_classes = int(labels.max()) + 1
    print("""----Data statistics------'
      #Edges %d
      #Classes %d
      #Train samples %d
      #Val samples %d
      #Test samples %d""" %
          (n_edges, n_classes,
           train_mask.int().sum().item(),
           val_mask.int().sum().item(),
           test_mask.int().sum().item()))
    n_edges = n_edges + adj.shape[0]

    model = APPNP(adj, features.shape[1], args.hidden_sizes, n_classes, F.relu,
                  args.in_drop, args.edge_drop, args.alpha, args.k)
    loss_fcn = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.layers[-1].parameters(), lr=args.lr, weight_decay=args.weight_decay)

    dur = []
    for epoch in range(args.n_epochs):
        model.train()
        if epoch >= 3:
            t0 = time.time()
        logits = model(features)
        loss = loss_fcn(logits[train_mask], labels[train_mask])

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if epoch >= 3:
            dur.append(time.time() - t0)

        acc = evaluate(model, features, labels, val_mask)
        print("Epoch {:05d} | Time(s) {:.4f} | Loss {:.4f} | Accuracy {:.4f} | "
              "ETputs(KTEPS) {:.2f}".format(epoch, np.mean(dur), loss.item(),
                                            acc, n_edges / np.mean(dur) / 1000))

    print()
    acc = evaluate(model, features, labels, test_mask)
    print("Test Accuracy {:.4f}".format(acc))


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description='APPNP')
    parser.add_argument("--dataset", type=str, default="sbm-synthetic")
    parser.add_argument("--in-drop", type=float, default=0.5)
    parser.add_argument("--edge-drop", type=float, default=0.5)
    parser.add_argument("--gpu", type=int, default=-1)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--n-epochs", type=int, default=120)
    parser.add_argument("--hidden_sizes", type=int, nargs='+', default=[64])
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--weight-decay", type=float, default=5e-4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(args)

    main(args)
