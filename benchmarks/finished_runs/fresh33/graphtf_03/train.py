import math
import time
import datetime
import logging
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
SEED = 9071
torch.manual_seed(SEED)
np.random.seed(SEED)

# ---------------- config ----------------
N_NODES = 600
N_CLASS = 5
FEAT = 16
D = 48
HEADS = 4
LAYERS = 2
EPOCHS = 60
LR = 5e-3
WD = 0.0
DROPOUT = 0.5
N_TRAIN_PER_CLASS = 12

# ---------------- data: SBM graph with noisy features ----------------
rng = np.random.RandomState(SEED)
labels = rng.randint(N_CLASS, size=N_NODES)
p_in, p_out = 0.05, 0.006
probs = np.where(labels[:, None] == labels[None, :], p_in, p_out)
A = (rng.rand(N_NODES, N_NODES) < probs).astype(np.float32)
A = np.triu(A, 1)
A = A + A.T
centers = rng.normal(0, 1, (N_CLASS, FEAT))
X = centers[labels] * 0.45 + rng.normal(0, 1, (N_NODES, FEAT))
X = torch.tensor(X, dtype=torch.float32)
Y = torch.tensor(labels)
adj = torch.tensor(A) + torch.eye(N_NODES)
deg = adj.sum(1)
# Laplacian eigenvector positional encodings
L = torch.eye(N_NODES) - adj / torch.sqrt(deg[:, None] * deg[None, :])
evals, evecs = torch.linalg.eigh(L)
PE = evecs[:, 1:9].contiguous()
train_idx = torch.tensor(np.concatenate([rng.permutation(np.where(labels == c)[0])[:N_TRAIN_PER_CLASS] for c in range(N_CLASS)]))
rest = np.setdiff1d(np.arange(N_NODES), train_idx.numpy())
rest = rng.permutation(rest)
val_idx = torch.tensor(rest[:200])
attn_bias = torch.where(adj > 0, torch.zeros(()), torch.full((), -1e9))

# ---------------- model: graph transformer with neighbourhood-masked attention ----------------
class GTLayer(nn.Module):
    def __init__(self, d, heads, p):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, dropout=p, batch_first=True)
        self.ln1 = nn.LayerNorm(d)
        self.ln2 = nn.LayerNorm(d)
        self.ffn = nn.Sequential(nn.Linear(d, 2 * d), nn.ReLU(), nn.Dropout(p), nn.Linear(2 * d, d))
        self.drop = nn.Dropout(p)

    def forward(self, h, mask):
        a, _ = self.attn(h, h, h, attn_mask=mask)
        h = self.ln1(h + self.drop(a))
        return self.ln2(h + self.drop(self.ffn(h)))

class GraphTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(FEAT, D)
        self.pe = nn.Linear(PE.shape[1], D)
        self.layers = nn.ModuleList([GTLayer(D, HEADS, DROPOUT) for _ in range(LAYERS)])
        self.out = nn.Linear(D, N_CLASS)

    def forward(self, x, pe, mask):
        h = (self.inp(x) + self.pe(pe)).unsqueeze(0)
        m = mask.repeat(HEADS, 1, 1)
        for layer in self.layers:
            h = layer(h, m)
        return self.out(h.squeeze(0))

model = GraphTransformer()
opt = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)
n_params = sum(p.numel() for p in model.parameters())

logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                    format='%(asctime)s - %(name)s - %(levelname)s - %(message)s')
logger = logging.getLogger()

def log_begin(info):
    logger.info('Namespace(n_epoch={}, lr={}, n_head={}, n_layer={}, drop_out={}, seed={})'.format(EPOCHS, LR, HEADS, LAYERS, DROPOUT, SEED))
    logger.info('num of training instances: {}'.format(info["train"]))

def log_epoch(epoch, E, tr, va, secs, n_params, elapsed):
    logger.info('start {} epoch'.format(epoch))
    logger.info('epoch: {} took {:.2f}s'.format(epoch, secs))
    logger.info('Epoch mean loss: {}'.format(tr["loss"]))
    logger.info('train acc: {}, val acc: {}'.format(tr["accuracy"], va["accuracy"]))
    logger.info('val loss: {}'.format(va["loss"]))

def log_end(va, secs):
    logger.info('Test statistics: acc: {}, loss: {}'.format(va["accuracy"], va["loss"]))
    logger.info('Saving GraphTransformer model')
    logger.info('GraphTransformer model saved')


def evaluate():
    model.eval()
    with torch.no_grad():
        out = model(X, PE, attn_bias)
        vl = F.cross_entropy(out[val_idx], Y[val_idx]).item()
        va = (out[val_idx].argmax(1) == Y[val_idx]).float().mean().item()
        ta = (out[train_idx].argmax(1) == Y[train_idx]).float().mean().item()
    return {"loss": vl, "accuracy": va, "train_accuracy": ta, "correct": int(round(va * len(val_idx))), "total": len(val_idx)}

log_begin({"params": n_params, "nodes": N_NODES, "edges": int(A.sum() // 2), "train": len(train_idx), "val": len(val_idx), "lr": LR, "epochs": EPOCHS})
t0 = time.time()
for epoch in range(EPOCHS):
    te = time.time()
    model.eval()
    opt.zero_grad()
    out = model(X, PE, attn_bias)
    loss = F.cross_entropy(out[train_idx], Y[train_idx])
    loss.backward()
    opt.step()
    tr_acc = (out[train_idx].argmax(1) == Y[train_idx]).float().mean().item()
    va = evaluate()
    log_epoch(epoch, EPOCHS, {"loss": loss.item(), "accuracy": tr_acc, "lr": opt.param_groups[0]["lr"]}, va, time.time() - te, n_params, time.time() - t0)
log_end(va, time.time() - t0)
