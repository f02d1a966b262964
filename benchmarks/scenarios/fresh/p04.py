"""Support-ticket topic classifier: bag-of-words MLP over hashed tokens."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
SEED = 4
VOCAB = 500
TOPICS = 6


def synth_tickets(n, rng):
    topic_words = rng.choice(VOCAB, size=(TOPICS, 25), replace=False)
    y = rng.integers(0, TOPICS, n)
    X = np.zeros((n, VOCAB), np.float32)
    for i, t in enumerate(y):
        words = np.concatenate([rng.choice(topic_words[t], 6), rng.integers(0, VOCAB, 12)])
        np.add.at(X[i], words, 1.0)
    return np.log1p(X), y


def train_val_split(X, y, val_frac, seed):
    rng = np.random.default_rng(seed)
    X = rng.permutation(X)
    y = rng.permutation(y)
    n_val = int(len(X) * val_frac)
    return X[n_val:], X[:n_val], y[n_val:], y[:n_val]


def main():
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    X, y = synth_tickets(3000, rng)
    X_tr, X_va, y_tr, y_va = train_val_split(X, y, 0.2, SEED)
    tr = DataLoader(TensorDataset(torch.tensor(X_tr), torch.tensor(y_tr)), batch_size=64, shuffle=True)
    Xv, yv = torch.tensor(X_va), torch.tensor(y_va)

    model = nn.Sequential(nn.Linear(VOCAB, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, TOPICS))
    opt = torch.optim.Adam(model.parameters(), lr=5e-4, weight_decay=1e-4)
    crit = nn.CrossEntropyLoss()

    with open("metrics.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["epoch", "loss", "accuracy", "val_loss", "val_accuracy"])
        w.writeheader()
        for epoch in range(8):
            model.train()
            tl, tc, tn = 0.0, 0, 0
            for xb, yb in tr:
                out = model(xb)
                loss = crit(out, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                tl += loss.item() * len(yb)
                tc += (out.argmax(1) == yb).sum().item()
                tn += len(yb)
            model.eval()
            with torch.no_grad():
                vo = model(Xv)
                vl = crit(vo, yv).item()
                va = (vo.argmax(1) == yv).float().mean().item()
            w.writerow(dict(epoch=epoch, loss=round(tl / tn, 5), accuracy=round(tc / tn, 4),
                            val_loss=round(vl, 5), val_accuracy=round(va, 4)))
            print(f"epoch {epoch}: loss {tl/tn:.4f} acc {tc/tn:.3f} | val {vl:.4f} acc {va:.3f}")


if __name__ == "__main__":
    main()
