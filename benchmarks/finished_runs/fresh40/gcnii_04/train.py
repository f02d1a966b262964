"""GCNII (Chen et al., 2020, "Simple and Deep Graph Convolutional Networks") for semi-supervised
node classification, adapted from the authors' train.py / model.py (GraphConvolution with initial
residual alpha and identity mapping beta_l = log(lambda / l + 1)) to a synthetic citation graph.
"""
import logging
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s -   %(message)s",
                    datefmt="%m/%d/%Y %H:%M:%S", level=logging.INFO)
logger = logging.getLogger("gcnii")

seed = 42
np.random.seed(seed)
torch.manual_seed(seed)
torch.set_num_threads(1)

args = dict(epochs=200, lr=0.001, wd1=0.01, wd2=5e-4, layer=8, hidden=64, dropout=0.6,
            patience=100, alpha=0.1, lamda=0.5, variant=False)

# ---------------- synthetic citation graph (stochastic block model) ----------------
N, C, F_IN = 1200, 5, 300
rng = np.random.RandomState(seed)
labels_np = rng.randint(0, C, size=N)
p_in, p_out = 0.012, 0.0022
same = labels_np[:, None] == labels_np[None, :]
probs = np.where(same, p_in, p_out)
upper = np.triu(rng.rand(N, N) < probs, 1)
A = (upper | upper.T).astype(np.float32)
# bag-of-words: each class prefers its own block of 60 words, plus common words
topic = np.full((C, F_IN), 0.4 / F_IN, dtype=np.float32)
for c in range(C):
    topic[c, c * 60:(c + 1) * 60] += 0.6 / 60
topic /= topic.sum(1, keepdims=True)
X = np.zeros((N, F_IN), dtype=np.float32)
for i in range(N):
    words = rng.choice(F_IN, size=rng.randint(6, 14), p=topic[labels_np[i]])
    np.add.at(X[i], words, 1.0)
X = X / np.maximum(X.sum(1, keepdims=True), 1.0)          # row-normalise features

A_hat = A + np.eye(N, dtype=np.float32)
d_inv_sqrt = 1.0 / np.sqrt(A_hat.sum(1))
adj_np = A_hat * d_inv_sqrt[:, None] * d_inv_sqrt[None, :]
adj = torch.from_numpy(adj_np).to_sparse()
features = torch.from_numpy(X)
labels = torch.from_numpy(labels_np).long()
perm = rng.permutation(N)
idx_train = torch.from_numpy(np.sort(perm[:100]))
idx_val = torch.from_numpy(np.sort(perm[100:400]))
idx_test = torch.from_numpy(np.sort(perm[400:900]))
logger.info("graph: %d nodes, %d edges, %d features, %d classes; train/val/test %d/%d/%d",
            N, int(A.sum() // 2), F_IN, C, len(idx_train), len(idx_val), len(idx_test))


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features, residual=False, variant=False):
        super().__init__()
        self.variant = variant
        self.in_features = 2 * in_features if variant else in_features
        self.out_features = out_features
        self.residual = residual
        self.weight = nn.Parameter(torch.FloatTensor(self.in_features, self.out_features))
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.out_features)
        self.weight.data.uniform_(-stdv, stdv)

    def forward(self, input, adj, h0, lamda, alpha, l):
        theta = math.log(lamda / l + 1)
        hi = torch.spmm(adj, input)
        if self.variant:
            support = torch.cat([hi, h0], 1)
            r = (1 - alpha) * hi + alpha * h0
        else:
            support = (1 - alpha) * hi + alpha * h0
            r = support
        output = theta * torch.mm(support, self.weight) + (1 - theta) * r
        if self.residual:
            output = output + input
        return output


class GCNII(nn.Module):
    def __init__(self, nfeat, nlayers, nhidden, nclass, dropout, lamda, alpha, variant):
        super().__init__()
        self.convs = nn.ModuleList()
        for _ in range(nlayers):
            self.convs.append(GraphConvolution(nhidden, nhidden, variant=variant))
        self.fcs = nn.ModuleList()
        self.fcs.append(nn.Linear(nfeat, nhidden))
        self.fcs.append(nn.Linear(nhidden, nclass))
        self.params1 = list(self.convs.parameters())
        self.params2 = list(self.fcs.parameters())
        self.act_fn = nn.ReLU()
        self.dropout = dropout
        self.alpha = alpha
        self.lamda = lamda

    def forward(self, x, adj):
        _layers = []
        x = F.dropout(x, self.dropout, training=self.training)
        layer_inner = self.act_fn(self.fcs[0](x))
        _layers.append(layer_inner)
        for i, con in enumerate(self.convs):
            layer_inner = F.dropout(layer_inner, self.dropout, training=self.training)
            layer_inner = self.act_fn(con(layer_inner, adj, _layers[0], self.lamda, self.alpha, i + 1))
        layer_inner = F.dropout(layer_inner, self.dropout, training=self.training)
        layer_inner = self.fcs[-1](layer_inner)
        return F.log_softmax(layer_inner, dim=1)


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    return preds.eq(labels).double().sum() / len(labels)


model = GCNII(nfeat=F_IN, nlayers=args["layer"], nhidden=args["hidden"], nclass=C,
              dropout=args["dropout"], lamda=args["lamda"], alpha=args["alpha"], variant=args["variant"])
optimizer = torch.optim.Adam([
    dict(params=model.params1, weight_decay=args["wd1"]),
    dict(params=model.params2, weight_decay=args["wd2"]),
], lr=args["lr"])
logger.info("model: GCNII, %d layers, hidden %d, alpha %.2f, lambda %.2f, dropout %.2f",
            args["layer"], args["hidden"], args["alpha"], args["lamda"], args["dropout"])
logger.info("optimizer: Adam lr %g, wd(convs) %g, wd(dense) %g", args["lr"], args["wd1"], args["wd2"])


def train():
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    acc_train = accuracy(output[idx_train], labels[idx_train])
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()
    return loss_train.item(), acc_train.item()


def validate():
    model.eval()
    with torch.no_grad():
        output = model(features, adj)
        loss_val = F.nll_loss(output[idx_val], labels[idx_val])
        acc_val = accuracy(output[idx_val], labels[idx_val])
        return loss_val.item(), acc_val.item()


def test():
    model.eval()
    with torch.no_grad():
        output = model(features, adj)
        loss_test = F.nll_loss(output[idx_test], labels[idx_test])
        acc_test = accuracy(output[idx_test], labels[idx_test])
        return loss_test.item(), acc_test.item()


t_total = time.time()
bad_counter, best, best_epoch, best_state = 0, 1e9, 0, None
for epoch in range(args["epochs"]):
    loss_tra, acc_tra = train()
    loss_val, acc_val = validate()
    if (epoch + 1) % 10 == 0 or epoch == 0:
        logger.info("Epoch:%04d train loss:%.3f acc:%.2f | val loss:%.3f acc:%.2f",
                    epoch + 1, loss_tra, acc_tra * 100, loss_val, acc_val * 100)
    if loss_val < best:
        best, best_epoch, bad_counter = loss_val, epoch, 0
        best_state = {k: v.clone() for k, v in model.state_dict().items()}
    else:
        bad_counter += 1
    if bad_counter == args["patience"]:
        logger.info("early stopping: val loss has not improved for %d epochs", args["patience"])
        break

logger.info("Train cost: %.4fs", time.time() - t_total)
model.load_state_dict(best_state)
loss_test, acc_test = test()
logger.info("Load %dth epoch", best_epoch + 1)
logger.info("Test acc.:%.1f  (test loss %.4f)", acc_test * 100, loss_test)
