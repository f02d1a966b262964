"""Focal-loss detector head on an imbalanced anchor set: 48-dim synthetic anchor features (as if pooled from a
backbone), about 4% of anchors are objects (a nonlinear function of a few feature directions). An MLP head with
BatchNorm and dropout gives one objectness logit per anchor, trained with the sigmoid focal loss
(alpha=0.25, gamma=2) and a RetinaNet-style prior bias. Reports loss, average precision and recall@0.5."""
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
LR = 0.002
BATCH_SIZE = 256
EPOCHS = 16
LOG_EVERY = 10
N_TRAIN = 20000
N_VAL = 5000
POS_FRAC = 0.04
HIDDEN = 128
DROPOUT = 0.5

torch.set_num_threads(1)
torch.manual_seed(SEED)

def info(msg):
    print(msg)


def wrap_epoch(it, epoch):
    print(f"Epoch {epoch}/{EPOCHS}")
    return it


def on_step(epoch, step, n_steps, m, lr, gstep):
    pass


def on_epoch(epoch, n_steps, tr, va, elapsed, lr, gstep):
    ms = elapsed * 1000 / n_steps
    parts = " - ".join([f"{k}: {v:.4f}" for k, v in tr.items()] + [f"val_{k}: {v:.4f}" for k, v in va.items()])
    print(f"{n_steps}/{n_steps} [==============================] - {elapsed:.0f}s {ms:.0f}ms/step - {parts}")


def on_end(total, tr):
    pass


D_IN = 48
_w = np.random.default_rng(77).standard_normal((D_IN, 4))


def make_anchors(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, D_IN)).astype(np.float32)
    p = x @ _w / np.sqrt(D_IN)
    score = p[:, 0] * p[:, 1] + np.abs(p[:, 2]) - 0.5 * p[:, 3] ** 2 + 0.3 * rng.standard_normal(n)
    y = (score > np.quantile(score, 1 - POS_FRAC)).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y)


x_tr, y_tr = make_anchors(N_TRAIN, SEED + 1)
x_va, y_va = make_anchors(N_VAL, SEED + 2)
train_loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(x_va, y_va), batch_size=1000)
N_VAL_BATCHES = len(val_loader)
info(f"anchors train {N_TRAIN} (pos {int(y_tr.sum())})  val {N_VAL} (pos {int(y_va.sum())})")


class DetHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(D_IN, HIDDEN), nn.BatchNorm1d(HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT),
            nn.Linear(HIDDEN, HIDDEN), nn.BatchNorm1d(HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT))
        self.cls = nn.Linear(HIDDEN, 1)
        nn.init.constant_(self.cls.bias, -math.log((1 - 0.01) / 0.01))

    def forward(self, x):
        return self.cls(self.body(x)).squeeze(1)


def focal_loss(logits, targets, alpha=0.25, gamma=2.0):
    p = torch.sigmoid(logits)
    ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    a_t = alpha * targets + (1 - alpha) * (1 - targets)
    return (a_t * (1 - p_t) ** gamma * ce).sum() / targets.sum().clamp(min=1.0)


def average_precision(scores, labels):
    order = torch.argsort(scores, descending=True)
    l = labels[order]
    tp = torch.cumsum(l, 0)
    prec = tp / torch.arange(1, len(l) + 1)
    return (prec * l).sum().item() / max(l.sum().item(), 1.0)


model = DetHead()
info(f"head params: {sum(p.numel() for p in model.parameters()):,}")
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=1e-4)


def forward_loss(batch):
    x, y = batch
    logits = model(x)
    loss = focal_loss(logits, y)
    return loss, {"loss": loss.item()}


@torch.no_grad()
def evaluate():
    model.eval()
    scores, labels, tot = [], [], 0.0
    for x, y in val_loader:
        logits = model(x)
        tot += focal_loss(logits, y).item() * y.sum().clamp(min=1.0).item()
        scores.append(torch.sigmoid(logits))
        labels.append(y)
    s, l = torch.cat(scores), torch.cat(labels)
    recall = ((s > 0.5) & (l > 0)).float().sum().item() / l.sum().item()
    return {"loss": tot / l.sum().item(), "ap": average_precision(s, l), "recall": recall}


t0 = time.time()
gstep = 0
tr = {}
for epoch in range(1, EPOCHS + 1):
    model.train()
    t_ep = time.time()
    sums, seen = {}, 0
    n_steps = len(train_loader)
    for step, batch in enumerate(wrap_epoch(train_loader, epoch), 1):
        optimizer.zero_grad()
        loss, m = forward_loss(batch)
        loss.backward()
        optimizer.step()
        gstep += 1
        bs = len(batch[0])
        for k, v in m.items():
            sums[k] = sums.get(k, 0.0) + v * bs
        seen += bs
        on_step(epoch, step, n_steps, m, optimizer.param_groups[0]["lr"], gstep)
    tr = {k: v / seen for k, v in sums.items()}
    val = evaluate()
    on_epoch(epoch, n_steps, tr, val, time.time() - t_ep, optimizer.param_groups[0]["lr"], gstep)
on_end(time.time() - t0, tr)
