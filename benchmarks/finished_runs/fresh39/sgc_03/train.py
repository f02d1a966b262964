# Simple Graph Convolution (SGC; Wu et al., "Simplifying Graph Convolutional Networks", ICML 2019), adapted from
# the authors' citation.py: features are propagated K times with the normalised adjacency S = D^-1/2 (A+I) D^-1/2
# once, before training, and a single linear (logistic-regression) layer is trained full-batch with Adam.
# Data: a synthetic 1500-node, five-topic citation graph (stochastic block model) with bag-of-words features.
import json
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 7
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)

N_NODES, N_CLASSES, N_WORDS = 1500, 5, 400
P_IN, P_OUT = 0.010, 0.0016
DEGREE = 2
LR = 0.2
WEIGHT_DECAY = 5e-6
EPOCHS = 150
N_TRAIN, N_VAL = 300, 500
LOG_EVERY = 10

rng = np.random.RandomState(SEED)
labels = rng.randint(0, N_CLASSES, N_NODES)
same = labels[:, None] == labels[None, :]
prob = np.where(same, P_IN, P_OUT)
upper = np.triu(rng.rand(N_NODES, N_NODES) < prob, 1)
adj = (upper | upper.T).astype(np.float32)

# bag of words: each topic prefers its own 40 words, every document also draws background words
topic_words = [rng.choice(N_WORDS, 40, replace=False) for _ in range(N_CLASSES)]
feats = np.zeros((N_NODES, N_WORDS), dtype=np.float32)
for i in range(N_NODES):
    n_doc = rng.randint(15, 40)
    own = rng.rand(n_doc) < 0.22
    words = np.where(own, rng.choice(topic_words[labels[i]], n_doc), rng.randint(0, N_WORDS, n_doc))
    np.add.at(feats[i], words, 1.0)
feats = feats / feats.sum(1, keepdims=True)  # row-normalise as in the Planetoid preprocessing

perm = rng.permutation(N_NODES)
idx_train, idx_val, idx_test = perm[:N_TRAIN], perm[N_TRAIN:N_TRAIN + N_VAL], perm[N_TRAIN + N_VAL:]

a_hat = adj + np.eye(N_NODES, dtype=np.float32)
d_inv_sqrt = 1.0 / np.sqrt(a_hat.sum(1))
s_norm = torch.tensor(d_inv_sqrt[:, None] * a_hat * d_inv_sqrt[None, :])
features = torch.tensor(feats)
labels_t = torch.tensor(labels, dtype=torch.long)


def sgc_precompute(x, s, degree):
    t = time.perf_counter()
    for _ in range(degree):
        x = s @ x
    return x, time.perf_counter() - t


class SGC(nn.Module):
    def __init__(self, nfeat, nclass):
        super().__init__()
        self.W = nn.Linear(nfeat, nclass)

    def forward(self, x):
        return self.W(x)


features, precompute_time = sgc_precompute(features, s_norm, DEGREE)
print(f"Loading synthetic citation graph: {N_NODES} nodes, {int(adj.sum() // 2)} edges, {N_WORDS} features, "
      f"{N_CLASSES} classes")
print(f"precompute S^{DEGREE}X: {precompute_time:.4f}s")

model = SGC(features.size(1), N_CLASSES)
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)


def accuracy(output, y):
    return (output.argmax(1) == y).float().mean().item()


t_total = time.time()
for epoch in range(EPOCHS):
    t = time.time()
    model.train()
    output = model(features[idx_train])
    loss_train = F.cross_entropy(output, labels_t[idx_train])
    loss_train.backward()
    optimizer.step()
    acc_train = accuracy(output, labels_t[idx_train])
    model.eval()
    with torch.no_grad():
        out_val = model(features[idx_val])
        loss_val = F.cross_entropy(out_val, labels_t[idx_val]).item()
        acc_val = accuracy(out_val, labels_t[idx_val])
    if (epoch + 1) % LOG_EVERY == 0 or epoch == 0:
        #LOGLINE
        print(f"Epoch: {epoch + 1:04d} loss_train: {loss_train.item():.4f} acc_train: {acc_train:.4f} "
              f"loss_val: {loss_val:.4f} acc_val: {acc_val:.4f} time: {time.time() - t:.4f}s")

train_time = time.time() - t_total
model.eval()
with torch.no_grad():
    out_test = model(features[idx_test])
    loss_test = F.cross_entropy(out_test, labels_t[idx_test]).item()
    acc_test = accuracy(out_test, labels_t[idx_test])
print("Optimization Finished!")
print(f"Total time elapsed: {train_time:.4f}s")
print(f"Validation Accuracy: {acc_val:.4f} Test Accuracy: {acc_test:.4f} (test loss {loss_test:.4f})")
