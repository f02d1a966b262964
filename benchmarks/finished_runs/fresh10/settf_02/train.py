"""Set Transformer classifier (SAB encoder blocks + PMA pooling by multihead attention, as in Lee et al. 2019):
each example is an unordered set of 24 noisy 2-D points sampled from one of four generative shapes (ring,
line segment, two clusters, uniform square) under random rotation, scale and offset; the model must tell
the shape from the set, independent of point order. Cross-entropy training with Adam."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_num_threads(1)
import json

with open("config.json") as f:
    CFG = json.load(f)
_st = {"t0": time.time(), "losses": []}


def log_info(msg):
    print(msg)


def progress(it, epoch, n_epochs, n_batches):
    return it


def on_batch(bar, loss):
    _st["losses"].append(loss)


def log_epoch(epoch, n_epochs, m, lr):
    train = {k: v for k, v in m.items() if not k.startswith("val")}
    ev = {k.replace("val_", "eval_"): v for k, v in m.items() if k.startswith("val")}
    d = {k: round(v, 4) for k, v in train.items()}
    d.update({"learning_rate": lr, "epoch": float(epoch)})
    print(d)
    e = {k: round(v, 4) for k, v in ev.items()}
    e.update({"eval_runtime": round(time.time() - _st["t0"], 2), "epoch": float(epoch)})
    print(e)


def log_end(summary):
    d = {"train_runtime": round(time.time() - _st["t0"], 2),
         "train_loss": round(sum(_st["losses"]) / max(1, len(_st["losses"])), 4)}
    d.update(summary)
    print(d)

SHAPES = ["ring", "segment", "two_clusters", "square"]


def make_sets(n, set_size, g):
    y = torch.randint(0, 4, (n,), generator=g)
    u = torch.rand(n, set_size, generator=g)
    v = torch.rand(n, set_size, generator=g)
    pts = torch.zeros(n, set_size, 2)
    ang = 2 * math.pi * u
    ring = torch.stack([torch.cos(ang), torch.sin(ang)], -1)
    seg = torch.stack([2 * u - 1, 0.05 * (2 * v - 1)], -1)
    side = (v < 0.5).float().unsqueeze(-1) * 2 - 1
    clus = torch.cat([0.8 * side, torch.zeros(n, set_size, 1)], -1) + 0.18 * torch.randn(n, set_size, 2, generator=g)
    sq = torch.stack([2 * u - 1, 2 * v - 1], -1)
    for k, s in enumerate([ring, seg, clus, sq]):
        pts[y == k] = s[y == k]
    theta = 2 * math.pi * torch.rand(n, generator=g)
    rot = torch.stack([torch.stack([torch.cos(theta), -torch.sin(theta)], -1),
                       torch.stack([torch.sin(theta), torch.cos(theta)], -1)], -2)
    scale = 0.7 + 0.6 * torch.rand(n, 1, 1, generator=g)
    shift = 0.5 * torch.randn(n, 1, 2, generator=g)
    pts = scale * pts @ rot.transpose(1, 2) + shift + 0.04 * torch.randn(n, set_size, 2, generator=g)
    return pts, y


class MAB(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.att = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.ReLU(), nn.Linear(2 * dim, dim))

    def forward(self, q, k):
        h = self.ln1(q + self.att(q, k, k, need_weights=False)[0])
        return self.ln2(h + self.ff(h))


class SetTransformer(nn.Module):
    def __init__(self, dim, heads, n_sab, n_classes, dropout):
        super().__init__()
        self.embed = nn.Linear(2, dim)
        self.sabs = nn.ModuleList([MAB(dim, heads) for _ in range(n_sab)])
        self.seed = nn.Parameter(torch.randn(1, 1, dim) * 0.1)
        self.pma = MAB(dim, heads)
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(dim, n_classes))

    def forward(self, x):
        h = self.embed(x)
        for sab in self.sabs:
            h = sab(h, h)
        pooled = self.pma(self.seed.expand(len(x), -1, -1), h).squeeze(1)
        return self.head(pooled)


g = torch.Generator().manual_seed(3)
x_train, y_train = make_sets(CFG["n_train"], CFG["set_size"], g)
x_val, y_val = make_sets(CFG["n_val"], CFG["set_size"], g)
train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=CFG["batch_size"], shuffle=True)
val_loader = DataLoader(TensorDataset(x_val, y_val), batch_size=256)

model = SetTransformer(CFG["dim"], CFG["heads"], CFG["n_sab"], 4, CFG["dropout"])
optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"], weight_decay=CFG["weight_decay"])
criterion = nn.CrossEntropyLoss()
log_info(f"sets: train {len(x_train)} val {len(x_val)} | set size {CFG['set_size']} | classes {SHAPES} | "
         f"params {sum(p.numel() for p in model.parameters() if p.requires_grad)}")


def evaluate():
    model.eval()
    tot, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in val_loader:
            out = model(xb)
            tot += criterion(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    return tot / n, correct / n


t_start = time.time()
best = 0.0
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    tot, correct, n = 0.0, 0, 0
    bar = progress(train_loader, epoch, CFG["epochs"], len(train_loader))
    for xb, yb in bar:
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(yb)
        correct += (out.argmax(1) == yb).sum().item()
        n += len(yb)
        on_batch(bar, loss.item())
    val_loss, val_acc = evaluate()
    best = max(best, val_acc)
    log_epoch(epoch, CFG["epochs"], {"loss": tot / n, "acc": correct / n, "val_loss": val_loss, "val_acc": val_acc},
              optimizer.param_groups[0]["lr"])

log_end({"best_val_acc": round(best, 4), "final_val_acc": round(val_acc, 4), "time_s": round(time.time() - t_start, 1)})
