"""Hypernetwork regression: a task encoder reads a task descriptor (amplitude, phase, frequency and offset of a
periodic response curve, e.g. a calibration curve of a sensor family) and a hypernetwork emits all weights of a
small target MLP (1 -> 16 -> 16 -> 1, tanh) that maps x to y for that task. Each example is one task with 40
(x, y) query points; the loss is the MSE of the generated target net on those points. Adam, batched with bmm."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_num_threads(1)
CFG = dict(epochs=25, batch_size=32, lr=0.001, hidden=128, depth=2, n_pts=40, n_train=2000, n_val=400)
_hdr = {"done": False}


def log_info(msg):
    print("# " + msg)


def progress(it, epoch, n_epochs, n_batches):
    return it


def on_batch(bar, loss):
    pass


def log_epoch(epoch, n_epochs, m, lr):
    if not _hdr["done"]:
        print(",".join(["epoch"] + list(m) + ["lr"]))
        _hdr["done"] = True
    print(",".join([str(epoch)] + [f"{v:.5f}" for v in m.values()] + [f"{lr:.6g}"]))


def log_end(summary):
    print("# final " + " ".join(f"{k}={v}" for k, v in summary.items()))

H = 16
SHAPES = [(1, H), (H,), (H, H), (H,), (H, 1), (1,)]
N_TARGET = sum(math.prod(s) for s in SHAPES)


def make_tasks(n, n_pts, g):
    amp = 0.5 + 1.5 * torch.rand(n, generator=g)
    phase = 2 * math.pi * torch.rand(n, generator=g)
    freq = 0.6 + 0.8 * torch.rand(n, generator=g)
    off = 0.5 * torch.randn(n, generator=g)
    desc = torch.stack([amp, torch.sin(phase), torch.cos(phase), freq, off], 1)
    x = torch.rand(n, n_pts, 1, generator=g) * 8 - 4
    y = amp[:, None, None] * torch.sin(freq[:, None, None] * x + phase[:, None, None]) + off[:, None, None]
    y = y + 0.05 * torch.randn(n, n_pts, 1, generator=g)
    return desc, x, y


class HyperNet(nn.Module):
    def __init__(self, n_desc, hidden, depth, act):
        super().__init__()
        layers, d = [], n_desc
        for _ in range(depth):
            layers += [nn.Linear(d, hidden), act()]
            d = hidden
        self.body = nn.Sequential(*layers)
        self.emit = nn.Linear(hidden, N_TARGET)
        with torch.no_grad():
            self.emit.weight.mul_(0.1)

    def forward(self, desc):
        return self.emit(self.body(desc))


def target_forward(flat, x):
    ws, i = [], 0
    for s in SHAPES:
        k = math.prod(s)
        ws.append(flat[:, i:i + k].reshape(len(flat), *s))
        i += k
    w1, b1, w2, b2, w3, b3 = ws
    h = torch.tanh(torch.bmm(x, w1) + b1[:, None])
    h = torch.tanh(torch.bmm(h, w2) + b2[:, None])
    return torch.bmm(h, w3) + b3[:, None]


g = torch.Generator().manual_seed(7)
d_train, x_train, y_train = make_tasks(CFG["n_train"], CFG["n_pts"], g)
d_val, x_val, y_val = make_tasks(CFG["n_val"], CFG["n_pts"], g)
# descriptor export: the offset column of ~2% of the task records was never measured (missing -> NaN)
missing = torch.rand(len(d_train), generator=g) < 0.02
d_train[missing, 4] = float("nan")
train_loader = DataLoader(TensorDataset(d_train, x_train, y_train), batch_size=CFG["batch_size"], shuffle=True)

model = HyperNet(5, CFG["hidden"], CFG["depth"], nn.ReLU)
optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
log_info(f"hypernetwork: {sum(p.numel() for p in model.parameters())} params emitting {N_TARGET} target weights | "
         f"tasks train {len(d_train)} val {len(d_val)} | {CFG['n_pts']} points per task")


def evaluate():
    model.eval()
    with torch.no_grad():
        pred = target_forward(model(d_val), x_val)
        mse = F.mse_loss(pred, y_val).item()
        mae = (pred - y_val).abs().mean().item()
    return mse, mae


t_start = time.time()
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    tot, n = 0.0, 0
    bar = progress(train_loader, epoch, CFG["epochs"], len(train_loader))
    for db, xb, yb in bar:
        optimizer.zero_grad()
        pred = target_forward(model(db), xb)
        loss = F.mse_loss(pred, yb)
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(db)
        n += len(db)
        on_batch(bar, loss.item())
    val_mse, val_mae = evaluate()
    log_epoch(epoch, CFG["epochs"], {"loss": tot / n, "val_loss": val_mse, "val_mae": val_mae},
              optimizer.param_groups[0]["lr"])

log_end({"final_val_loss": round(val_mse, 5), "final_val_mae": round(val_mae, 4), "time_s": round(time.time() - t_start, 1)})
