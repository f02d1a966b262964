"""Implicit-feedback recommender: generalised matrix factorisation (GMF) for a podcast app.

Each (user, episode) pair is scored from user and item embeddings; observed plays are
positives and 4 random unplayed episodes per positive are sampled as negatives.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(143)
torch.set_num_threads(1)

N_USERS, N_ITEMS, DIM = 600, 400, 32
CFG = {"epochs": 10, "batch_size": 256, "lr": 5e-3, "neg": 4}


class GMF(nn.Module):
    def __init__(self):
        super().__init__()
        self.user = nn.Embedding(N_USERS, DIM)
        self.item = nn.Embedding(N_ITEMS, DIM)
        self.predict = nn.Sequential(nn.Linear(DIM, 1), nn.Sigmoid())
        nn.init.normal_(self.user.weight, std=0.1)
        nn.init.normal_(self.item.weight, std=0.1)

    def forward(self, u, i):
        return self.predict(self.user(u) * self.item(i)).squeeze(1)


class PlayDataset(Dataset):
    def __init__(self, pos, n_neg, rng):
        users, items, labels = [], [], []
        for u, i in pos:
            users.append(u); items.append(i); labels.append(1.0)
            for j in rng.integers(0, N_ITEMS, n_neg):
                users.append(u); items.append(j); labels.append(0.0)
        self.u = torch.tensor(users); self.i = torch.tensor(items); self.y = torch.tensor(labels)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, k):
        return self.u[k], self.i[k], self.y[k]


def synth_plays(rng):
    tu = rng.normal(0, 1, (N_USERS, 6)); ti = rng.normal(0, 1, (N_ITEMS, 6))
    aff = tu @ ti.T
    pos = []
    for u in range(N_USERS):
        top = np.argsort(-aff[u])[:40]
        pos += [(u, i) for i in rng.choice(top, 15, replace=False)]
    rng.shuffle(pos)
    return pos


def main():
    rng = np.random.default_rng(143)
    pos = synth_plays(rng)
    cut = int(0.85 * len(pos))
    train_ds = PlayDataset(pos[:cut], CFG["neg"], rng)
    val_ds = PlayDataset(pos[cut:], CFG["neg"], rng)
    dl = DataLoader(train_ds, batch_size=CFG["batch_size"], shuffle=True)
    model = GMF()
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    crit = nn.BCEWithLogitsLoss()
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            model.train()
            for u, i, y in dl:
                loss = crit(model(u, i), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if step % 20 == 0:
                    model.eval()
                    with torch.no_grad():
                        s = model(val_ds.u, val_ds.i)
                        vl = crit(s, val_ds.y).item()
                        acc = ((s > 0.5).float() == val_ds.y).float().mean().item()
                    model.train()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{acc:.4f}"])
            print(f"epoch {epoch} step {step}  train {loss.item():.4f}  val {vl:.4f}  acc {acc:.3f}")


if __name__ == "__main__":
    main()
