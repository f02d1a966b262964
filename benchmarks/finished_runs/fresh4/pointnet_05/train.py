"""Vanilla PointNet (shared per-point MLP as 1x1 Conv1d + BatchNorm, global max-pool, MLP head)
classifying synthetic point clouds of 5 shape families (sphere, cube surface, cylinder, cone,
torus) with random scale, z-rotation, anisotropic stretch and jitter."""
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
LR = 1e-3
BATCH_SIZE = 32
EPOCHS = 8
LOG_EVERY = 8
N_POINTS = 128
N_CLASSES = 5
N_TRAIN = 1000
N_VAL = 300
DROPOUT = 0.3

torch.set_num_threads(1)
torch.manual_seed(SEED)
def wrap_epoch(it, epoch):
    return it


def on_step(epoch, step, n_steps, loss, metrics, lr, gstep):
    if step % LOG_EVERY == 0:
        extra = " ".join(f"{k[:3]} {v:.3f}" for k, v in metrics.items())
        print(f"E{epoch:02d} S{step:04d} L={loss:.4f} {extra}")


def on_epoch(epoch, n_steps, train, val, elapsed, lr):
    tr = "/".join(f"{v:.4f}" for v in train.values())
    va = "/".join(f"{v:.4f}" for v in val.values())
    keys = "/".join(train.keys())
    print(f"E{epoch:02d} done  tr({keys}) {tr}  va {va}  {elapsed:.1f}s")


def on_end(total_time, train):
    pass
CLASS_NAMES = ["sphere", "cube", "cylinder", "cone", "torus"]


def sample_shape(c, g):
    u = torch.rand(N_POINTS, generator=g)
    v = torch.rand(N_POINTS, generator=g)
    if c == 0:
        p = torch.randn(N_POINTS, 3, generator=g)
        p = p / p.norm(dim=1, keepdim=True)
    elif c == 1:
        p = torch.rand(N_POINTS, 3, generator=g) * 2 - 1
        face = torch.randint(0, 3, (N_POINTS,), generator=g)
        sign = torch.randint(0, 2, (N_POINTS,), generator=g).float() * 2 - 1
        p[torch.arange(N_POINTS), face] = sign
    elif c == 2:
        th = 2 * math.pi * u
        p = torch.stack([torch.cos(th), torch.sin(th), 2 * v - 1], 1)
    elif c == 3:
        th = 2 * math.pi * u
        r = 1 - v
        p = torch.stack([r * torch.cos(th), r * torch.sin(th), 2 * v - 1], 1)
    else:
        th, ph = 2 * math.pi * u, 2 * math.pi * v
        p = torch.stack([(1 + 0.4 * torch.cos(ph)) * torch.cos(th), (1 + 0.4 * torch.cos(ph)) * torch.sin(th), 0.4 * torch.sin(ph)], 1)
    a = 2 * math.pi * torch.rand(1, generator=g).item()
    rot = torch.tensor([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    stretch = 0.7 + 0.6 * torch.rand(3, generator=g)
    p = (p @ rot.t()) * stretch * (0.5 + torch.rand(1, generator=g))
    return p + 0.05 * torch.randn(N_POINTS, 3, generator=g)


def make_split(n, seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    pts = torch.stack([sample_shape(int(c), g) for c in y])
    return pts, y


pts_tr, y_tr = make_split(N_TRAIN, SEED + 1)
pts_va, y_va = make_split(N_VAL, SEED + 2)
train_loader = DataLoader(TensorDataset(pts_tr, y_tr), batch_size=BATCH_SIZE, shuffle=True)
order_va = torch.argsort(y_va, stable=True)
pts_va, y_va = pts_va[order_va], y_va[order_va]
val_loader = DataLoader(TensorDataset(pts_va, y_va), batch_size=60)
print(f"point clouds: train {len(pts_tr)} val {len(pts_va)} points/cloud {N_POINTS} classes {CLASS_NAMES}")


class PointNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(3, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, 128, 1), nn.BatchNorm1d(128), nn.ReLU(),
        )
        self.head = nn.Sequential(
            nn.Linear(128, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(DROPOUT),
            nn.Linear(64, N_CLASSES),
        )

    def forward(self, pts):                    # pts: (B, N, 3)
        h = self.features(pts.transpose(1, 2))  # (B, 128, N)
        return self.head(h.max(dim=2).values)


model = PointNet()
print(model)
print(f"trainable params: {sum(p.numel() for p in model.parameters() if p.requires_grad):,}")
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=1e-4)
criterion = nn.CrossEntropyLoss()


@torch.no_grad()
def evaluate():
    tot_loss, tot_acc, n = 0.0, 0.0, 0
    for pts, yb in val_loader:
        logits = model(pts)
        tot_loss += criterion(logits, yb).item() * len(pts)
        tot_acc += (logits.argmax(1) == yb).float().sum().item()
        n += len(pts)
    return {"loss": tot_loss / n, "acc": tot_acc / n}


t0 = time.time()
gstep = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t_ep = time.time()
    run_loss, run_acc, seen = 0.0, 0.0, 0
    n_steps = len(train_loader)
    for step, (pts, yb) in enumerate(wrap_epoch(train_loader, epoch), 1):
        optimizer.zero_grad()
        logits = model(pts)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()
        gstep += 1
        acc = (logits.argmax(1) == yb).float().mean().item()
        run_loss += loss.item() * len(pts)
        run_acc += acc * len(pts)
        seen += len(pts)
        on_step(epoch, step, n_steps, loss.item(), {"acc": acc}, optimizer.param_groups[0]["lr"], gstep)
    val = evaluate()
    on_epoch(epoch, n_steps, {"loss": run_loss / seen, "acc": run_acc / seen}, val, time.time() - t_ep, optimizer.param_groups[0]["lr"])
on_end(time.time() - t0, {})
