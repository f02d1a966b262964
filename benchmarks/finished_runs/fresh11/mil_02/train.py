"""Attention-based deep multiple-instance learning (Ilse et al., gated attention pooling) on synthetic bags.
Each bag holds 6-14 instance vectors (24 features) drawn from 6 background clusters; a bag is positive when it
contains at least one instance from a "key" cluster that overlaps the background clusters. An instance MLP (with
BatchNorm) embeds each instance, gated attention weights the instances of a bag (padding masked out), and a
two-way linear head classifies the pooled bag embedding with cross-entropy. Bags are padded to the longest bag in
the mini-batch."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)
CFG = dict(epochs=12, batch_size=16, lr=0.001, weight_decay=0.001, hidden=96, att_dim=32, dropout=0.25,
           n_train=1500, n_val=300)

def log_info(msg):
    print(msg)


def progress(it, epoch, n_epochs, n):
    _st["n"] = n
    return it


_st = {"n": 1}


def on_step(epoch, n_epochs, i, n, loss, lr, gstep, total):
    if gstep % 25 == 0:
        print({"loss": round(loss, 4), "learning_rate": lr, "epoch": round(epoch - 1 + (i + 1) / n, 2)})


def log_epoch(epoch, n_epochs, m, lr):
    d = {("eval_" + k if not k.startswith("train") else k): round(float(v), 4) for k, v in m.items()}
    d["epoch"] = float(epoch)
    print(d)


def log_end(summary):
    print({"train_runtime": summary.get("time_s"), **{k: v for k, v in summary.items() if k != "time_s"}})

D = 24


def make_bags(n, g, centers, key):
    bags, labels = [], []
    for _ in range(n):
        size = int(torch.randint(6, 15, (1,), generator=g))
        idx = torch.randint(0, centers.shape[0], (size,), generator=g)
        x = centers[idx] + 1.3 * torch.randn(size, D, generator=g)
        y = int(torch.rand(1, generator=g) < 0.5)
        if y:
            n_key = int(torch.randint(1, 3, (1,), generator=g))
            pos = torch.randperm(size, generator=g)[:n_key]
            x[pos] = key + 1.3 * torch.randn(n_key, D, generator=g)
        bags.append(x)
        labels.append(y)
    return bags, torch.tensor(labels)


def collate(batch):
    xs, ys = zip(*batch)
    m = max(len(x) for x in xs)
    out = torch.zeros(len(xs), m, D)
    mask = torch.zeros(len(xs), m, dtype=torch.bool)
    for i, x in enumerate(xs):
        out[i, :len(x)] = x
        mask[i, :len(x)] = True
    return out, mask, torch.tensor(ys)


class GatedAttentionMIL(nn.Module):
    def __init__(self, d_in, hidden, att, dropout):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.bn = nn.BatchNorm1d(hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.att_v = nn.Linear(hidden, att)
        self.att_u = nn.Linear(hidden, att)
        self.att_w = nn.Linear(att, 1)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(hidden, 2)

    def forward(self, x, mask):
        h = self.fc1(x[mask])
        h = F.relu(self.bn(h))
        h = F.relu(self.fc2(self.drop(h)))
        full = x.new_zeros(x.shape[0], x.shape[1], h.shape[-1])
        full[mask] = h
        a = self.att_w(torch.tanh(self.att_v(full)) * torch.sigmoid(self.att_u(full))).squeeze(-1)
        a = a.masked_fill(~mask, float("-inf")).softmax(1)
        bag = (a.unsqueeze(-1) * full).sum(1)
        return self.head(self.drop(bag))


g = torch.Generator().manual_seed(1)
centers = 1.2 * torch.randn(6, D, generator=g)
key = 0.5 * (centers[0] + centers[1]) + 0.45 * torch.randn(D, generator=g)
train_bags, train_y = make_bags(CFG["n_train"], g, centers, key)
val_bags, val_y = make_bags(CFG["n_val"], g, centers, key)
train_ds = list(zip(train_bags, train_y.tolist()))
val_ds = list(zip(val_bags, val_y.tolist()))
train_loader = DataLoader(train_ds, batch_size=CFG["batch_size"], shuffle=True, collate_fn=collate)
val_loader = DataLoader(val_ds, batch_size=64, shuffle=False, collate_fn=collate)
_N_UPD, _BS = len(train_loader), CFG["batch_size"]

model = GatedAttentionMIL(D, CFG["hidden"], CFG["att_dim"], CFG["dropout"])
optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"], weight_decay=CFG["weight_decay"])
criterion = nn.CrossEntropyLoss()
total_steps = CFG["epochs"] * len(train_loader)
log_info(f"Gated-attention MIL: {sum(p.numel() for p in model.parameters())} params | train bags {len(train_ds)} "
         f"(positive {train_y.float().mean():.2f}) val bags {len(val_ds)} | batch {CFG['batch_size']} bags")


def evaluate():
    model.eval()
    tot, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, mb, yb in val_loader:
            logits = model(xb, mb)
            tot += criterion(logits, yb).item() * len(yb)
            correct += (logits.argmax(1) == yb).sum().item()
            n += len(yb)
    return tot / n, correct / n


t_start = time.time()
gstep = 0
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    tot, correct, n = 0.0, 0, 0
    bar = progress(train_loader, epoch, CFG["epochs"], len(train_loader))
    for i, (xb, mb, yb) in enumerate(bar):
        optimizer.zero_grad()
        logits = model(xb, mb)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(yb)
        correct += (logits.argmax(1) == yb).sum().item()
        n += len(yb)
        on_step(epoch, CFG["epochs"], i, len(train_loader), loss.item(), optimizer.param_groups[0]["lr"], gstep, total_steps)
    val_loss, val_acc = evaluate()
    log_epoch(epoch, CFG["epochs"], {"loss": tot / n, "train_acc": correct / n, "val_loss": val_loss, "val_acc": val_acc},
              optimizer.param_groups[0]["lr"])

log_end({"final_val_acc": round(val_acc, 4), "final_val_loss": round(val_loss, 4), "time_s": round(time.time() - t_start, 1)})
