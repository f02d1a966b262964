# ChebNet (Defferrard et al., NeurIPS 2016: "Convolutional Neural Networks on Graphs with Fast Localized
# Spectral Filtering") for semi-supervised node classification on a synthetic citation-like graph:
# 1200 nodes in 6 communities (stochastic block model), sparse bag-of-words node features whose topic words
# depend on the community, Chebyshev filters of order K=3 on the scaled normalised Laplacian, full-batch Adam.
import logging
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("chebnet")

SEED = 17
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)

N, C, F_IN = 1200, 6, 300
K = 3
HIDDEN = 32
DROPOUT = 0.5
LR = 0.01
WEIGHT_DECAY = 5e-4
EPOCHS = 150
LOG_EVERY = 10

rng = np.random.RandomState(SEED)
y_np = rng.randint(0, C, size=N)
p_in, p_out = 8.0 / N, 2.5 / N
same = y_np[:, None] == y_np[None, :]
A = (rng.rand(N, N) < np.where(same, p_in, p_out)).astype(np.float32)
A = np.triu(A, 1)
A = A + A.T
# bag-of-words features: 20 topic words per community, each document draws ~25 words, 40% from its topic
topic = rng.rand(C, F_IN) < 20 / F_IN
X_np = np.zeros((N, F_IN), dtype=np.float32)
for i in range(N):
    words = np.where(topic[y_np[i]])[0]
    n_words = rng.poisson(25)
    on_topic = rng.rand(n_words) < 0.4
    ids = np.where(on_topic, rng.choice(words, n_words), rng.randint(0, F_IN, n_words))
    np.add.at(X_np[i], ids, 1.0)
X_np = X_np / np.maximum(X_np.sum(1, keepdims=True), 1.0)  # row-normalised term frequencies

deg = A.sum(1)
d_inv_sqrt = np.where(deg > 0, 1 / np.sqrt(np.maximum(deg, 1e-12)), 0.0)
L = np.eye(N) - d_inv_sqrt[:, None] * A * d_inv_sqrt[None, :]
lmax = 2.0
L_hat = torch.tensor(2 * L / lmax - np.eye(N), dtype=torch.float32).to_sparse()
X = torch.tensor(X_np)
y = torch.tensor(y_np)
perm = rng.permutation(N)
train_idx, val_idx, test_idx = (torch.tensor(perm[:240]), torch.tensor(perm[240:640]), torch.tensor(perm[640:]))


class ChebConv(nn.Module):
    def __init__(self, f_in, f_out, k):
        super().__init__()
        self.lins = nn.ModuleList([nn.Linear(f_in, f_out, bias=False) for _ in range(k)])
        self.bias = nn.Parameter(torch.zeros(f_out))
        for lin in self.lins:
            nn.init.xavier_uniform_(lin.weight)

    def forward(self, x):
        tx0, out = x, self.lins[0](x)
        tx1 = torch.sparse.mm(L_hat, x)
        out = out + self.lins[1](tx1)
        for lin in self.lins[2:]:
            tx2 = 2 * torch.sparse.mm(L_hat, tx1) - tx0
            out = out + lin(tx2)
            tx0, tx1 = tx1, tx2
        return out + self.bias


class ChebNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = ChebConv(F_IN, HIDDEN, K)
        self.conv2 = ChebConv(HIDDEN, C, K)

    def forward(self, x):
        x = F.dropout(x, DROPOUT, self.training)
        x = F.relu(self.conv1(x))
        x = F.dropout(x, DROPOUT, self.training)
        return self.conv2(x)


model = ChebNet()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
print(f"nodes={N} edges={int(A.sum() // 2)} features={F_IN} classes={C} train={len(train_idx)} val={len(val_idx)} test={len(test_idx)}")
print(f"{'epoch':>5} {'loss':>8} {'train_acc':>9} {'val_loss':>8} {'val_acc':>7} {'time':>7}")
best_val, best_test = 0.0, 0.0
for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    model.train()
    optimizer.zero_grad()
    out = model(X)
    loss = F.cross_entropy(out[train_idx], y[train_idx])
    loss.backward()
    optimizer.step()
    model.eval()
    with torch.no_grad():
        out = model(X)
        pred = out.argmax(1)
        train_acc = (pred[train_idx] == y[train_idx]).float().mean().item()
        val_loss = F.cross_entropy(out[val_idx], y[val_idx]).item()
        val_acc = (pred[val_idx] == y[val_idx]).float().mean().item()
        test_acc = (pred[test_idx] == y[test_idx]).float().mean().item()
    if val_acc > best_val:
        best_val, best_test = val_acc, test_acc
    if epoch % LOG_EVERY == 0 or epoch == 1:
        print(f"{epoch:>5} {loss.item():>8.4f} {train_acc:>9.4f} {val_loss:>8.4f} {val_acc:>7.4f} {time.time() - t0:>6.3f}s")
print(f"best val_acc {best_val:.4f} | test_acc at best val {best_test:.4f}")
