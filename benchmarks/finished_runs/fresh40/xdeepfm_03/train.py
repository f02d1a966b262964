"""xDeepFM (Lian et al., KDD 2018): linear part + Compressed Interaction Network (CIN) + DNN over
shared field embeddings, as in the authors' repository (Leavingseason/xDeepFM) and the pytorch-fm
CompressedInteractionNetwork; trained on a synthetic click log. One JSON object per log line.
"""
import json
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 7
torch.manual_seed(SEED)
np.random.seed(SEED)
torch.set_num_threads(1)

FIELD_DIMS = [6, 8, 4, 10, 5, 7, 3, 12, 9, 6]
EMBED_DIM = 8
CIN_SIZES = (16, 16)
MLP_DIMS = (64, 32)
DROPOUT = 0.2
EPOCHS = 10
BATCH_SIZE = 256
LR = 2e-3
WEIGHT_DECAY = 1e-6


def make_log(n, rng, effects, crosses, w_price):
    X = np.stack([rng.randint(0, d, size=n) for d in FIELD_DIMS], 1)
    price = rng.lognormal(3.0, 0.6, size=n).astype(np.float32)          # raw price in currency units
    logit = -1.9 + sum(effects[f][X[:, f]] for f in range(len(FIELD_DIMS)))
    for (a, b, M) in crosses:
        logit = logit + M[X[:, a], X[:, b]]
    logit = logit + w_price * (np.log(price) - 3.0)
    y = (rng.rand(n) < 1 / (1 + np.exp(-logit))).astype(np.float32)
    return X.astype(np.int64), price, y


rng = np.random.RandomState(SEED)
effects = [rng.normal(0, 0.45, size=d) for d in FIELD_DIMS]
crosses = [(a, b, rng.normal(0, 1.0, size=(FIELD_DIMS[a], FIELD_DIMS[b]))) for a, b in
           [(0, 1), (2, 3), (4, 7), (5, 8), (1, 9), (3, 6)]]
Xc_tr, p_tr, y_tr = make_log(12000, rng, effects, crosses, -0.8)
Xc_va, p_va, y_va = make_log(3000, rng, effects, crosses, -0.8)
lp_mu, lp_sd = np.log(p_tr).mean(), np.log(p_tr).std()


def numeric(p):
    return torch.from_numpy(((np.log(p) - lp_mu) / lp_sd).astype(np.float32)).unsqueeze(1)


Xc_tr_t, Xn_tr_t, y_tr_t = torch.from_numpy(Xc_tr), numeric(p_tr), torch.from_numpy(y_tr)
Xc_va_t, Xn_va_t, y_va_t = torch.from_numpy(Xc_va), numeric(p_va), torch.from_numpy(y_va)
offsets = torch.tensor(np.concatenate([[0], np.cumsum(FIELD_DIMS)[:-1]]), dtype=torch.long)


class CompressedInteractionNetwork(nn.Module):
    def __init__(self, num_fields, cross_layer_sizes, split_half=True):
        super().__init__()
        self.num_layers = len(cross_layer_sizes)
        self.split_half = split_half
        self.conv_layers = nn.ModuleList()
        prev_dim, fc_input_dim = num_fields, 0
        for i, size in enumerate(cross_layer_sizes):
            self.conv_layers.append(nn.Conv1d(num_fields * prev_dim, size, 1, stride=1, dilation=1, bias=True))
            if self.split_half and i != self.num_layers - 1:
                size //= 2
            prev_dim = size
            fc_input_dim += prev_dim
        self.fc = nn.Linear(fc_input_dim, 1)

    def forward(self, x):
        xs = list()
        x0, h = x.unsqueeze(2), x
        for i in range(self.num_layers):
            x = x0 * h.unsqueeze(1)
            batch_size, f0_dim, fin_dim, embed_dim = x.shape
            x = x.view(batch_size, f0_dim * fin_dim, embed_dim)
            x = F.relu(self.conv_layers[i](x))
            if self.split_half and i != self.num_layers - 1:
                x, h = torch.split(x, x.shape[1] // 2, dim=1)
            else:
                h = x
            xs.append(x)
        return self.fc(torch.sum(torch.cat(xs, dim=1), 2))


class XDeepFM(nn.Module):
    def __init__(self):
        super().__init__()
        n = sum(FIELD_DIMS)
        self.embedding = nn.Embedding(n, EMBED_DIM)
        nn.init.xavier_uniform_(self.embedding.weight)
        self.linear = nn.Embedding(n, 1)
        nn.init.zeros_(self.linear.weight)
        self.num_linear = nn.Linear(1, 1)
        self.num_embed = nn.Linear(1, EMBED_DIM, bias=False)
        self.bias = nn.Parameter(torch.zeros(1))
        nf = len(FIELD_DIMS) + 1
        self.cin = CompressedInteractionNetwork(nf, CIN_SIZES)
        layers, d = [], nf * EMBED_DIM
        for h in MLP_DIMS:
            layers += [nn.Linear(d, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(DROPOUT)]
            d = h
        layers.append(nn.Linear(d, 1))
        self.mlp = nn.Sequential(*layers)

    def forward(self, xc, xn):
        idx = xc + offsets.unsqueeze(0)
        emb = torch.cat([self.embedding(idx), self.num_embed(xn).unsqueeze(1)], 1)
        lin = self.linear(idx).sum(1) + self.num_linear(xn) + self.bias
        out = lin + self.cin(emb) + self.mlp(emb.flatten(1))
        return out.squeeze(1)


def auc(y, s):
    order = np.argsort(s)
    r = np.empty(len(s))
    r[order] = np.arange(1, len(s) + 1)
    npos = y.sum()
    nneg = len(y) - npos
    if npos == 0 or nneg == 0:
        return float("nan")
    return float((r[y == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg))


model = XDeepFM()
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)

print(json.dumps({"event": "start", "model": "xDeepFM", "fields": len(FIELD_DIMS) + 1, "embed_dim": EMBED_DIM,
                  "cin": list(CIN_SIZES), "mlp": list(MLP_DIMS), "train": int(len(y_tr)), "valid": int(len(y_va)),
                  "ctr_train": round(float(y_tr.mean()), 4), "lr": LR, "batch_size": BATCH_SIZE}))
step = 0
for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    model.train()
    perm = torch.randperm(len(y_tr_t))
    losses, scores, ys = [], [], []
    for i in range(0, len(perm), BATCH_SIZE):
        idx = perm[i:i + BATCH_SIZE]
        logit = model(Xc_tr_t[idx], Xn_tr_t[idx])
        loss = criterion(torch.sigmoid(logit), y_tr_t[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        losses.append(loss.item())
        scores.append(logit.detach().numpy())
        ys.append(y_tr_t[idx].numpy())
        if step % 20 == 0:
            print(json.dumps({"event": "train_step", "step": step, "epoch": epoch, "loss": round(loss.item(), 5),
                              "lr": optimizer.param_groups[0]["lr"]}))
    model.eval()
    with torch.no_grad():
        vlogit = model(Xc_va_t, Xn_va_t)
        vloss = F.binary_cross_entropy_with_logits(vlogit, y_va_t).item()
    print(json.dumps({"event": "epoch_end", "epoch": epoch, "train_loss": round(float(np.mean(losses)), 5),
                      "train_auc": round(auc(np.concatenate(ys), np.concatenate(scores)), 4),
                      "val_logloss": round(vloss, 5), "val_auc": round(auc(y_va, vlogit.numpy()), 4),
                      "time_s": round(time.time() - t0, 2)}))
print(json.dumps({"event": "done", "steps": step, "final_val_auc": round(auc(y_va, vlogit.numpy()), 4)}))
