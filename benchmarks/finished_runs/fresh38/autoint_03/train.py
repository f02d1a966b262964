# AutoInt (Song et al., CIKM 2019) CTR model on a synthetic click log:
# 10 categorical fields -> per-field embeddings -> 2 multi-head self-attentive interacting layers with
# residual connections -> flatten -> logit; BCE loss, AUC metric. Hyperparameters come from config.json.
import json
import time

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
cfg = json.load(open("config.json"))
SEED = cfg["seed"]
np.random.seed(SEED)
torch.manual_seed(SEED)

FIELD_SIZES = [6, 4, 8, 3, 5, 4, 10, 3, 5, 2]
N_FIELDS = len(FIELD_SIZES)

# ---- synthetic click log: click logit = bias + per-value effects + pairwise field-crosses (the interactions
# AutoInt is meant to find) + noise
rng = np.random.RandomState(0)
N_TOTAL = cfg["n_train"] + cfg["n_val"]
X = np.stack([rng.randint(0, s, size=N_TOTAL) for s in FIELD_SIZES], 1)
first = [rng.randn(s) * 0.4 for s in FIELD_SIZES]
pairs = [(0, 2), (1, 4), (2, 6), (3, 8), (5, 7), (0, 9)]
cross = {p: rng.randn(FIELD_SIZES[p[0]], FIELD_SIZES[p[1]]) * 1.2 for p in pairs}
logit = -0.8 + sum(first[f][X[:, f]] for f in range(N_FIELDS))
logit += sum(cross[(a, b)][X[:, a], X[:, b]] for a, b in pairs)
logit += rng.randn(N_TOTAL) * 0.5
y = (rng.rand(N_TOTAL) < 1 / (1 + np.exp(-logit))).astype(np.float32)
offsets = np.cumsum([0] + FIELD_SIZES[:-1])
X = X + offsets  # one shared embedding table, field offsets
Xtr, ytr = torch.tensor(X[:cfg["n_train"]]), torch.tensor(y[:cfg["n_train"]])
Xva, yva = torch.tensor(X[cfg["n_train"]:]), torch.tensor(y[cfg["n_train"]:])


def auc(scores, labels):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


class InteractingLayer(nn.Module):
    def __init__(self, d, heads, dropout):
        super().__init__()
        self.att = nn.MultiheadAttention(d, heads, dropout=dropout, batch_first=True)
        self.res = nn.Linear(d, d, bias=False)

    def forward(self, e):
        a, _ = self.att(e, e, e, need_weights=False)
        return torch.relu(a + self.res(e))


class AutoInt(nn.Module):
    def __init__(self):
        super().__init__()
        d = cfg["embed_dim"]
        self.emb = nn.Embedding(sum(FIELD_SIZES), d)
        nn.init.normal_(self.emb.weight, std=0.05)
        self.layers = nn.ModuleList([InteractingLayer(d, cfg["heads"], cfg["dropout"]) for _ in range(cfg["att_layers"])])
        self.drop = nn.Dropout(cfg["dropout"])
        self.out = nn.Linear(N_FIELDS * d, 1)

    def forward(self, x):
        e = self.emb(x)
        for layer in self.layers:
            e = layer(e)
        return self.out(self.drop(e.flatten(1)))


model = AutoInt()
optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
criterion = nn.BCEWithLogitsLoss()
B, EPOCHS = cfg["batch_size"], cfg["epochs"]
steps = (len(Xtr) + B - 1) // B


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(Xva)
        loss = criterion(logits, yva[:, None]).item()
    model.train()
    return loss, auc(logits[:, 0].numpy(), yva.numpy())


print(f"Train on {len(Xtr)} samples, validate on {len(Xva)} samples")
for epoch in range(EPOCHS):
    t0 = time.time()
    perm = torch.randperm(len(Xtr))
    tot, scores = 0.0, np.zeros(len(Xtr))
    for i in range(steps):
        idx = perm[i * B:(i + 1) * B]
        logits = model(Xtr[idx])
        loss = criterion(logits, ytr[idx][:, None])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(idx)
        scores[idx.numpy()] = logits[:, 0].detach().numpy()
    tr_loss, tr_auc = tot / len(Xtr), auc(scores, ytr.numpy())
    va_loss, va_auc = evaluate()
    dt = time.time() - t0
    print(f"Epoch {epoch + 1}/{EPOCHS}")
    print(f"{steps}/{steps} [==============================] - {dt:.0f}s {1000 * dt / steps:.0f}ms/step - loss: {tr_loss:.4f}"
          f" - auc: {tr_auc:.4f} - val_loss: {va_loss:.4f} - val_auc: {va_auc:.4f}")
