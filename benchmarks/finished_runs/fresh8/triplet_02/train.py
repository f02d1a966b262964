"""Metric learning with a triplet margin loss (FaceNet-style, as in pytorch-siamese-triplet): an MLP embeds
each sample on the unit sphere; a triplet dataset draws (anchor, positive, negative) with the positive from
the anchor's identity and the negative from another identity. Synthetic "identities": 16 prototypes in an
8-d latent space pushed through a fixed random nonlinear map to 48-d features plus noise.
Validation: triplet loss on fixed val triplets and leave-one-out nearest-neighbour recall@1."""
import random
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
random.seed(0)
torch.set_num_threads(1)
CFG = dict(epochs=10, batch_size=8, lr=0.001, weight_decay=0.0, hidden=128, emb_dim=16, dropout=0.2, margin=0.5, n_train=2400, triplets_per_epoch=4000)
import time
_T0 = time.time()
_st = {"nb": 1, "upd": 0}


def _ts():
    return time.strftime("%Y-%m-%d %H:%M:%S")


def log_info(msg):
    print(f"{_ts()} | INFO | train | {msg}")


def progress(it, epoch, n_epochs, n_batches):
    _st["nb"] = n_batches
    return it


def on_batch(bar, loss):
    pass


def log_epoch(epoch, n_epochs, m, lr):
    _st["upd"] += _st["nb"]
    tr = " | ".join(f"{k} {v:.3f}" for k, v in m.items() if not k.startswith("val_"))
    va = " | ".join(f"{k[4:]} {v:.3f}" for k, v in m.items() if k.startswith("val_"))
    print(f"{_ts()} | INFO | train | epoch {epoch:03d} | {tr} | lr {lr:.4g} | num_updates {_st['upd']} | wall {time.time() - _T0:.0f}")
    if va:
        print(f"{_ts()} | INFO | valid | epoch {epoch:03d} | valid on 'valid' subset | {va} | num_updates {_st['upd']}")


def log_end(summary):
    print(f"{_ts()} | INFO | train | done training in {time.time() - _T0:.1f} seconds")


N_ID = 16
g = torch.Generator().manual_seed(3)
PROTO = torch.randn(N_ID, 8, generator=g) * 1.2
MIX1, MIX2 = torch.randn(8, 64, generator=g) / 8 ** 0.5, torch.randn(64, 48, generator=g) / 8


def make_split(n, g):
    y = torch.randint(0, N_ID, (n,), generator=g)
    z = PROTO[y] + 0.5 * torch.randn(n, 8, generator=g)
    x = torch.tanh(z @ MIX1) @ MIX2 * 3 + 0.3 * torch.randn(n, 48, generator=g)
    return x, y


class TripletDataset(Dataset):
    def __init__(self, x, y, n_triplets, seed):
        self.x, self.y = x, y
        self.by_id = {int(c): (y == c).nonzero().flatten().tolist() for c in y.unique()}
        rng = random.Random(seed)
        self.triplets = []
        for _ in range(n_triplets):
            a_id, n_id = rng.sample(sorted(self.by_id), 2)
            a, p = rng.sample(self.by_id[a_id], 2)
            self.triplets.append((a, p, rng.choice(self.by_id[n_id])))

    def __len__(self):
        return len(self.triplets)

    def __getitem__(self, i):
        a, p, n = self.triplets[i]
        return self.x[a], self.x[p], self.x[n]


class EmbeddingNet(nn.Module):
    def __init__(self, hidden, dim, dropout):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(48, hidden), nn.ReLU(), nn.Dropout(dropout),
                                      nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout))
        self.head = nn.Linear(hidden, dim)

    def forward(self, x):
        return F.normalize(self.head(self.backbone(x)), dim=1)


x_tr, y_tr = make_split(CFG["n_train"], g)
x_va, y_va = make_split(800, g)
train_set = TripletDataset(x_tr, y_tr, CFG["triplets_per_epoch"], seed=1)
val_set = TripletDataset(x_va, y_va, 2000, seed=2)
train_loader = DataLoader(train_set, batch_size=CFG["batch_size"], shuffle=True)
val_loader = DataLoader(val_set, batch_size=500)
model = EmbeddingNet(CFG["hidden"], CFG["emb_dim"], CFG["dropout"])
criterion = nn.TripletMarginLoss(margin=CFG["margin"])
opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=CFG["lr"], weight_decay=CFG["weight_decay"])
log_info(f"identities {N_ID} | train samples {len(x_tr)} triplets/epoch {len(train_set)} | val samples {len(x_va)} "
         f"| margin {CFG['margin']} | Adam lr={CFG['lr']}")


def recall_at_1(x, y):
    with torch.no_grad():
        e = model(x)
        d = torch.cdist(e, e)
        d.fill_diagonal_(float("inf"))
        return (y[d.argmin(1)] == y).float().mean().item()


def evaluate():
    model.eval()
    tot, n = 0.0, 0
    with torch.no_grad():
        for a, p, ng in val_loader:
            tot += criterion(model(a), model(p), model(ng)).item() * len(a)
            n += len(a)
    r1 = recall_at_1(x_va, y_va)
    return tot / n, r1


for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    tot, n, active = 0.0, 0, 0
    bar = progress(train_loader, epoch, CFG["epochs"], len(train_loader))
    for a, p, ng in bar:
        ea, ep, en = model(a), model(p), model(ng)
        loss = criterion(ea, ep, en)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            active += ((ea - ep).norm(dim=1) - (ea - en).norm(dim=1) + CFG["margin"] > 0).sum().item()
        tot += loss.item() * len(a)
        n += len(a)
        on_batch(bar, loss.item())
    val_loss, val_r1 = evaluate()
    model.eval()
    train_r1 = recall_at_1(x_tr, y_tr)
    log_epoch(epoch, CFG["epochs"], {"loss": tot / n, "active": active / n, "train_r1": train_r1,
                                     "val_loss": val_loss, "val_r1": val_r1}, opt.param_groups[0]["lr"])

log_end({"epochs": CFG["epochs"], "val_recall@1": round(val_r1, 4)})
