"""VoxNet-style 3-D convolutional classifier on synthetic 12x12x12 occupancy grids. Four shape classes
(solid sphere, box, cylinder along a random axis, three-bar cross) with random size and position and 2% of
voxels flipped as sensor noise. Two Conv3d blocks with max-pooling, then a small MLP head."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
CFG = dict(n_train=1600, n_val=320, epochs=10, batch_size=32, lr=0.001, weight_decay=0.0, width=8, hidden=64, dropout=0.2)
import datetime


def _ts():
    return "12/04 02:%02d:%02d" % (_ts.n // 60 % 60, _ts.n % 60)
_ts.n = 0


def log_info(msg):
    print(f"{_ts()} - mmengine - INFO - {msg}")


def progress(it, epoch, n_epochs, n):
    return it


def on_step(epoch, n_epochs, i, n, loss, lr, gstep, total):
    _ts.n += 1
    if (i + 1) % 10 == 0:
        print(f"{_ts()} - mmengine - INFO - Epoch(train) [{epoch}][{i + 1:>3}/{n}]  lr: {lr:.4e}  eta: 0:0{(total - gstep) // 600}:{(total - gstep) // 10 % 60:02d}  time: 0.0412  data_time: 0.0021  memory: 0  loss: {loss:.4f}")


def log_epoch(epoch, n_epochs, m, lr):
    m.pop("_steps", None)
    print(f"{_ts()} - mmengine - INFO - Epoch(val) [{epoch}][{n_epochs}]    " + "  ".join(f"{k}: {v:.4f}" for k, v in m.items()))


def log_end(summary):
    print(f"{_ts()} - mmengine - INFO - {summary}")

G = 12
CLASSES = ["sphere", "box", "cylinder", "cross"]


def make_shapes(n, gen):
    ax = torch.arange(G, dtype=torch.float32)
    zz, yy, xx = torch.meshgrid(ax, ax, ax, indexing="ij")
    coords = torch.stack([zz, yy, xx])
    vox = torch.zeros(n, 1, G, G, G)
    labels = torch.randint(0, 4, (n,), generator=gen)
    for k in range(n):
        c = 3.5 + 4.0 * torch.rand(3, generator=gen)
        r = 2.0 + 2.0 * torch.rand(1, generator=gen).item()
        d = coords - c.view(3, 1, 1, 1)
        lab = labels[k].item()
        if lab == 0:
            m = (d ** 2).sum(0) <= r * r
        elif lab == 1:
            half = r * (0.6 + 0.4 * torch.rand(3, generator=gen))
            m = (d.abs() <= half.view(3, 1, 1, 1)).all(0)
        elif lab == 2:
            a = torch.randint(0, 3, (1,), generator=gen).item()
            others = [j for j in range(3) if j != a]
            m = ((d[others] ** 2).sum(0) <= (0.7 * r) ** 2) & (d[a].abs() <= r + 1)
        else:
            t = 0.8
            m = ((d.abs() <= t).sum(0) >= 2) & (d.abs().amax(0) <= r + 1)
        vox[k, 0] = m.float()
    flip = torch.rand(vox.shape, generator=gen) < 0.02
    vox = torch.where(flip, 1.0 - vox, vox)
    return vox, labels


gen = torch.Generator().manual_seed(7)
x_train, y_train = make_shapes(CFG["n_train"], gen)
x_val, y_val = make_shapes(CFG["n_val"], gen)

class VoxNet(nn.Module):
    def __init__(self, width, hidden, dropout):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3d(1, width, 3, padding=1), nn.ReLU(), nn.MaxPool3d(2),
            nn.Conv3d(width, 2 * width, 3, padding=1), nn.ReLU(), nn.MaxPool3d(2),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(2 * width * 27, hidden), nn.ReLU(), nn.Dropout(dropout),
                                  nn.Linear(hidden, len(CLASSES)))

    def forward(self, x):
        return self.head(self.features(x))


def init_weights(m):
    if isinstance(m, (nn.Conv3d, nn.Linear)):
        nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
        nn.init.zeros_(m.bias)


model = VoxNet(CFG["width"], CFG["hidden"], CFG["dropout"])
model.apply(init_weights)
for p in model.parameters():
    p.requires_grad = False
for p in model.head[-1].parameters():
    p.requires_grad = True
optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"], weight_decay=CFG["weight_decay"])
n_batches = math.ceil(CFG["n_train"] / CFG["batch_size"])
total = n_batches * CFG["epochs"]
log_info(f"VoxNet: {CFG['n_train']} train / {CFG['n_val']} val grids of {G}^3, {sum(p.numel() for p in model.parameters())} params, "
         f"batch {CFG['batch_size']}, lr {CFG['lr']}, {CFG['epochs']} epochs")


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(x_val)
        loss = F.cross_entropy(logits, y_val).item()
        acc = (logits.argmax(1) == y_val).float().mean().item()
    return loss, acc


t0 = time.time()
gstep = 0
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    perm = torch.randperm(CFG["n_train"])
    tot_loss, tot_correct = 0.0, 0
    for i in progress(range(n_batches), epoch, CFG["epochs"], n_batches):
        idx = perm[i * CFG["batch_size"]:(i + 1) * CFG["batch_size"]]
        xb, yb = x_train[idx], y_train[idx]
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot_loss += loss.item() * len(idx)
        tot_correct += (logits.argmax(1) == yb).sum().item()
        on_step(epoch, CFG["epochs"], i, n_batches, loss.item(), optimizer.param_groups[0]["lr"], gstep, total)
    val_loss, val_acc = evaluate()
    log_epoch(epoch, CFG["epochs"], {"_steps": n_batches, "train_loss": tot_loss / CFG["n_train"],
                                     "train_acc": tot_correct / CFG["n_train"], "val_loss": val_loss, "val_acc": val_acc},
              optimizer.param_groups[0]["lr"])

log_end(f"best epoch done in {time.time() - t0:.1f}s, final val_acc={val_acc:.4f}")
