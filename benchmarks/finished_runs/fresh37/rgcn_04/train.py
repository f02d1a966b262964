# R-GCN (Schlichtkrull et al. 2018) entity classification on a synthetic knowledge graph:
# 800 entities of 4 types, 3 relations: "colleague_of" links entities of the same type, "reports_to" links type c
# to type (c+1) % 4, "knows" is random. No entity features (featureless, one-hot identity input as in the paper's
# AIFB/MUTAG setup), basis-decomposed relation weights, self-loop, per-relation mean normalisation, full-batch Adam.
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 3
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)

N_NODES, N_TYPES, N_REL = 800, 4, 3
N_BASES = 2
HIDDEN = 16
DROPOUT = 0.5
LR = 0.01
WEIGHT_DECAY = 2e-3
N_EPOCHS = 50
LABEL_NOISE = 0.0

rng = np.random.RandomState(SEED)
labels = rng.randint(0, N_TYPES, size=N_NODES)
edges = []
for r, (deg, rule) in enumerate([(3, lambda c: c), (2, lambda c: (c + 1) % N_TYPES), (4, None)]):
    for u in range(N_NODES):
        for _ in range(rng.poisson(deg)):
            if rule is None or rng.rand() < 0.15:  # 15% of the typed edges are noise
                v = rng.randint(N_NODES)
            else:
                v = rng.choice(np.where(labels == rule(labels[u]))[0])
            edges.append((u, r, v))
            edges.append((v, r + N_REL, u))  # inverse relation
edges = np.array(edges)
N_REL_ALL = 2 * N_REL
# noisy observed labels (annotation noise); the evaluation uses the same noisy labels, as in a real dataset
obs = labels.copy()
flip = rng.rand(N_NODES) < LABEL_NOISE
obs[flip] = rng.randint(0, N_TYPES, size=flip.sum())
y = torch.tensor(obs)
perm = rng.permutation(N_NODES)
train_idx, val_idx, test_idx = map(torch.tensor, (perm[:400], perm[400:600], perm[600:]))

src = torch.tensor(edges[:, 0])
rel = torch.tensor(edges[:, 1])
dst = torch.tensor(edges[:, 2])
# per-(node, relation) in-degree normalisation c_{i,r}
key = dst * N_REL_ALL + rel
cnt = torch.bincount(key, minlength=N_NODES * N_REL_ALL).float()
norm = 1.0 / cnt[key]


class RGCNLayer(nn.Module):
    def __init__(self, in_dim, out_dim, featureless=False):
        super().__init__()
        self.featureless = featureless
        self.bases = nn.Parameter(torch.empty(N_BASES, in_dim, out_dim))
        self.coeff = nn.Parameter(torch.empty(N_REL_ALL, N_BASES))
        self.self_loop = nn.Parameter(torch.empty(in_dim, out_dim))
        self.bias = nn.Parameter(torch.zeros(out_dim))
        nn.init.xavier_uniform_(self.bases, gain=nn.init.calculate_gain("relu"))
        nn.init.xavier_uniform_(self.coeff)
        nn.init.xavier_uniform_(self.self_loop, gain=nn.init.calculate_gain("relu"))

    def forward(self, h):
        W = torch.einsum("rb,bio->rio", self.coeff, self.bases)  # (R, in, out)
        if self.featureless:  # h is the identity: message = row src of W_r
            msg = W[rel, src]
            out = self.self_loop
        else:
            msg = torch.bmm(h[src].unsqueeze(1), W[rel]).squeeze(1)
            out = h @ self.self_loop
        agg = torch.zeros(N_NODES, msg.shape[1]).index_add_(0, dst, msg * norm[:, None])
        return agg + out + self.bias


class RGCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = RGCNLayer(N_NODES, HIDDEN, featureless=True)
        self.layer2 = RGCNLayer(HIDDEN, N_TYPES)
        self.dropout = nn.Dropout(DROPOUT)

    def forward(self):
        h = F.relu(self.layer1(None))
        return self.layer2(self.dropout(h))


model = RGCN()
optimizer = torch.optim.Adam(model.layer2.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)

best_val = test_at_best = 0.0
for epoch in range(N_EPOCHS):
    t0 = time.time()
    model.train()
    optimizer.zero_grad()
    logits = model()
    loss = F.cross_entropy(logits[train_idx], y[train_idx])
    loss.backward()
    optimizer.step()
    train_acc = (logits[train_idx].argmax(1) == y[train_idx]).float().mean().item()
    model.eval()
    with torch.no_grad():
        logits = model()
        val_loss = F.cross_entropy(logits[val_idx], y[val_idx]).item()
        val_acc = (logits[val_idx].argmax(1) == y[val_idx]).float().mean().item()
        test_acc = (logits[test_idx].argmax(1) == y[test_idx]).float().mean().item()
    if val_acc > best_val:
        best_val, test_at_best = val_acc, test_acc
    print(f"Epoch: {epoch + 1:03d}, Loss: {loss.item():.4f}, Train: {train_acc:.4f}, Val: {val_acc:.4f}, Test: {test_acc:.4f}")
print(f"Best val: {best_val:.4f}, test at best val: {test_at_best:.4f}")
