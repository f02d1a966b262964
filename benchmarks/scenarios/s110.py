# Card-transaction fraud flagging on tabular features.
# About 1 in 10 transactions in this extract is a confirmed fraud case.
import copy
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(110)
rng = np.random.default_rng(110)

N_TRAIN, N_VAL = 6000, 2000
FEATURES = ["amount_log", "hour_sin", "hour_cos", "merchant_risk", "dist_home_km_log",
            "tx_last_24h", "card_age_days_log", "foreign", "online", "avg_amount_ratio"]


def make_transactions(n):
    fraud = (rng.random(n) < 0.10).astype(np.float32)
    hour = rng.uniform(0, 24, n)
    hour[fraud == 1] = (rng.normal(3.0, 3.0, int(fraud.sum()))) % 24     # night-time skew
    X = np.column_stack([
        rng.normal(3.5, 1.0, n) + 0.8 * fraud,
        np.sin(2 * np.pi * hour / 24),
        np.cos(2 * np.pi * hour / 24),
        rng.beta(2, 5, n) + 0.25 * fraud * rng.random(n),
        rng.normal(2.0, 1.0, n) + 0.9 * fraud,
        rng.poisson(2 + 2 * fraud, n),
        rng.normal(6.0, 1.0, n) - 0.7 * fraud,
        (rng.random(n) < 0.1 + 0.25 * fraud).astype(float),
        (rng.random(n) < 0.4 + 0.3 * fraud).astype(float),
        rng.lognormal(0, 0.4, n) * (1 + 0.6 * fraud),
    ]).astype(np.float32)
    return X, fraud


X_tr, y_tr = make_transactions(N_TRAIN)
X_va, y_va = make_transactions(N_VAL)

mu, sd = X_tr.mean(0), X_tr.std(0)
X_tr = (X_tr - mu) / sd
X_va = (X_va - mu) / sd
print(f"train {X_tr.shape}  fraud rate {y_tr.mean():.3f} | val {X_va.shape}  fraud rate {y_va.mean():.3f}")

train_dl = DataLoader(TensorDataset(torch.from_numpy(X_tr), torch.from_numpy(y_tr)),
                      batch_size=128, shuffle=True)
xv, yv = torch.from_numpy(X_va), torch.from_numpy(y_va)

model = nn.Sequential(
    nn.Linear(len(FEATURES), 64), nn.ReLU(), nn.Dropout(0.1),
    nn.Linear(64, 32), nn.ReLU(),
    nn.Linear(32, 1),
)
neg, pos = (y_tr == 0).sum(), (y_tr == 1).sum()
criterion = nn.BCEWithLogitsLoss(pos_weight=torch.tensor(neg / pos))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


def scores(logits, y):
    pred = (logits > 0).float()
    tp = ((pred == 1) & (y == 1)).sum().item()
    fp = ((pred == 1) & (y == 0)).sum().item()
    fn = ((pred == 0) & (y == 1)).sum().item()
    prec = tp / max(tp + fp, 1)
    rec = tp / max(tp + fn, 1)
    # rank-based AUC
    order = torch.argsort(logits)
    ranks = torch.empty_like(order, dtype=torch.float32)
    ranks[order] = torch.arange(1, len(logits) + 1, dtype=torch.float32)
    n_pos, n_neg = y.sum().item(), (1 - y).sum().item()
    auc = (ranks[y == 1].sum().item() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
    return prec, rec, auc


best_val, best_state, best_epoch, patience, bad = float("inf"), None, -1, 5, 0
log = open("metrics.csv", "w", newline="")
w = csv.writer(log)
w.writerow(["epoch", "train_loss", "val_loss", "val_precision", "val_recall", "val_auc", "best_epoch"])

for epoch in range(20):
    model.train()
    running, n = 0.0, 0
    for xb, yb in train_dl:
        optimizer.zero_grad()
        loss = criterion(model(xb).squeeze(1), yb)
        loss.backward()
        optimizer.step()
        running += loss.item() * len(yb)
        n += len(yb)
    train_loss = running / n

    model.eval()
    with torch.no_grad():
        v_logits = model(xv).squeeze(1)
        val_loss = criterion(v_logits, yv).item()
    prec, rec, auc = scores(v_logits, yv)

    if val_loss < best_val - 1e-4:
        best_val, best_epoch, bad = val_loss, epoch, 0
        best_state = copy.deepcopy(model.state_dict())
    else:
        bad += 1

    w.writerow([epoch, f"{train_loss:.4f}", f"{val_loss:.4f}", f"{prec:.3f}", f"{rec:.3f}",
                f"{auc:.4f}", best_epoch])
    log.flush()
    print(f"epoch {epoch:2d} train {train_loss:.4f} val {val_loss:.4f} "
          f"P {prec:.3f} R {rec:.3f} AUC {auc:.4f}" + ("  *" if best_epoch == epoch else ""))
    if bad >= patience:
        print(f"no improvement for {patience} epochs, stopping")
        break

log.close()
model.load_state_dict(best_state)
print(f"restored best checkpoint from epoch {best_epoch} (val loss {best_val:.4f})")
