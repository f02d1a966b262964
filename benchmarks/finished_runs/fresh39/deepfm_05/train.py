# DeepFM (Guo et al., "DeepFM: A Factorization-Machine based Neural Network for CTR Prediction", IJCAI 2017), adapted
# from the DeepFactorizationMachineModel of rixwew/pytorch-fm: a first-order linear term, a second-order FM term and
# an MLP over the shared field embeddings, summed into one click logit; plus three numeric fields (price, user age,
# dwell seconds) that enter the linear term and the MLP. Data: a synthetic 16000-impression click log.
import logging
import sys
import time

import numpy as np
import torch
import torch.nn as nn

SEED = 3
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)

FIELD_DIMS = [4, 6, 3, 8, 5, 10, 7, 4, 12, 300]   # the last field is a user id
N_SAMPLES, N_VAL = 16000, 3000
EMBED_DIM = 8
MLP_DIMS = (64, 32)
DROPOUT = 0.2
LR = 1e-3
WEIGHT_DECAY = 1e-6
BATCH_SIZE = 256
EPOCHS = 10
LOG_EVERY = 20

rng = np.random.RandomState(SEED)
N_SAMPLES_GEN = N_SAMPLES
cats = np.stack([rng.randint(0, d, N_SAMPLES_GEN) for d in FIELD_DIMS], 1)
price = rng.lognormal(4.0, 0.6, N_SAMPLES_GEN)           # currency units, ~20-200
age = rng.uniform(18, 70, N_SAMPLES_GEN)                 # years
dwell = rng.exponential(30.0, N_SAMPLES_GEN)             # seconds
effects = [rng.randn(d) * 0.5 for d in FIELD_DIMS]
effects[-1] = rng.randn(FIELD_DIMS[-1]) * 0.3
logit = -1.3 + sum(effects[f][cats[:, f]] for f in range(len(FIELD_DIMS)))
for (a, b) in [(0, 3), (1, 5), (2, 8), (4, 6), (3, 7), (5, 8)]:
    cross = rng.randn(FIELD_DIMS[a], FIELD_DIMS[b]) * 0.7
    logit = logit + cross[cats[:, a], cats[:, b]]
logit = logit - 0.6 * (np.log(price) - 4.0) + 0.4 * np.tanh((dwell - 30.0) / 30.0) + rng.randn(N_SAMPLES_GEN) * 0.5
clicks = (rng.rand(N_SAMPLES_GEN) < 1 / (1 + np.exp(-logit))).astype(np.float32)

dense = np.stack([price, age, dwell], 1).astype(np.float32)
d_mean, d_std = dense[:-N_VAL].mean(0), dense[:-N_VAL].std(0)
dense = (dense - d_mean) / d_std                           # standardise with training statistics

offsets = np.concatenate([[0], np.cumsum(FIELD_DIMS)[:-1]])
X_cat = torch.tensor(cats + offsets, dtype=torch.long)
X_num = torch.tensor(dense)
y = torch.tensor(clicks)
tr = slice(0, N_SAMPLES - N_VAL)
va = slice(N_SAMPLES - N_VAL, N_SAMPLES)


class FeaturesLinear(nn.Module):
    def __init__(self, n, n_num):
        super().__init__()
        self.fc = nn.Embedding(n, 1)
        self.num = nn.Linear(n_num, 1)
        self.bias = nn.Parameter(torch.zeros(1))

    def forward(self, x, xn):
        return self.fc(x).sum(1) + self.num(xn) + self.bias


class FactorizationMachine(nn.Module):
    def forward(self, e):
        square_of_sum = e.sum(1) ** 2
        sum_of_square = (e ** 2).sum(1)
        return 0.5 * (square_of_sum - sum_of_square).sum(1, keepdim=True)


class DeepFM(nn.Module):
    def __init__(self, field_dims, n_num, embed_dim, mlp_dims, dropout):
        super().__init__()
        n = int(sum(field_dims))
        self.linear = FeaturesLinear(n, n_num)
        self.embedding = nn.Embedding(n, embed_dim)
        nn.init.xavier_uniform_(self.embedding.weight)
        self.fm = FactorizationMachine()
        layers, d = [], len(field_dims) * embed_dim + n_num
        for h in mlp_dims:
            layers += [nn.Linear(d, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(dropout)]
            d = h
        layers.append(nn.Linear(d, 1))
        self.mlp = nn.Sequential(*layers)

    def forward(self, x, xn):
        e = self.embedding(x)
        deep_in = torch.cat([e.flatten(1), xn], 1)
        return (self.linear(x, xn) + self.fm(e) + self.mlp(deep_in)).squeeze(1)


def auc(scores, labels):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


model = DeepFM(FIELD_DIMS, 3, EMBED_DIM, MLP_DIMS, DROPOUT)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)


def loss_fn(logits, target):
    return criterion(logits, target)


def evaluate(sl):
    model.eval()
    with torch.no_grad():
        logits = model(X_cat[sl], X_num[sl])
        loss = nn.functional.binary_cross_entropy_with_logits(logits, y[sl]).item()
    return loss, auc(logits.numpy(), y[sl].numpy())


#STYLE
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
log = logging.getLogger("deepfm")
n_train = N_SAMPLES - N_VAL
steps = (n_train + BATCH_SIZE - 1) // BATCH_SIZE
log.info("train impressions %d, val impressions %d, click rate %.3f", n_train, N_VAL, clicks.mean())
log.info("model DeepFM(embed_dim=%d, mlp_dims=%s, dropout=%.2f) params=%d", EMBED_DIM, MLP_DIMS, DROPOUT,
         sum(p.numel() for p in model.parameters()))
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(n_train)
    t0, tot, seen, all_logits = time.time(), 0.0, 0, []
    for i in range(steps):
        idx = perm[i * BATCH_SIZE:(i + 1) * BATCH_SIZE]
        logits = model(X_cat[idx], X_num[idx])
        loss = loss_fn(logits, y[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(idx)
        seen += len(idx)
        if (i + 1) % LOG_EVERY == 0:
            log.info("epoch %d step %d/%d loss %.4f", epoch, i + 1, steps, tot / seen)
    train_loss = tot / seen
    _, train_auc = evaluate(tr)
    val_loss, val_auc = evaluate(va)
    log.info("epoch %d done in %.1fs: train_loss %.4f train_auc %.4f val_logloss %.4f val_auc %.4f", epoch,
             time.time() - t0, train_loss, train_auc, val_loss, val_auc)
log.info("training finished")
