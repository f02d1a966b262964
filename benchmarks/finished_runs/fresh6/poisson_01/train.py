"""Object-count regressor: a small CNN looks at 16x16 synthetic "microscope" images with a random number of
Gaussian blobs (plus a faint textured background) and predicts the log-rate of a Poisson distribution over the
count; trained with the Poisson negative log-likelihood. Reports NLL and mean absolute count error."""
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
LR = 0.003
BATCH_SIZE = 64
EPOCHS = 15
LOG_EVERY = 10
N_TRAIN = 3000
N_VAL = 500
MEAN_COUNT = 4.0
CH = 16
WEIGHT_DECAY = 0.0

torch.set_num_threads(1)
torch.manual_seed(SEED)

from tqdm import tqdm

_bar = None


def info(msg):
    print(msg)


def wrap_epoch(it, epoch):
    global _bar
    _bar = tqdm(it, desc=f"Epoch {epoch}/{EPOCHS}", ncols=100)
    return _bar


def on_step(epoch, step, n_steps, m, lr, gstep):
    if step % 4 == 0 or step == n_steps:
        _bar.set_postfix({k: f"{v:.4f}" for k, v in m.items()} | {"lr": f"{lr:.1e}"})


def on_epoch(epoch, n_steps, tr, va, elapsed, lr, gstep):
    _bar.close()
    print(f"epoch {epoch}: " + ", ".join(f"train_{k}={v:.4f}" for k, v in tr.items()) + ", "
          + ", ".join(f"val_{k}={v:.4f}" for k, v in va.items()))


def on_end(total, tr):
    print(f"finished in {total:.1f}s")


SIZE = 16
yy, xx = np.mgrid[0:SIZE, 0:SIZE]


def make_images(n, seed):
    rng = np.random.default_rng(seed)
    imgs = np.zeros((n, SIZE, SIZE), dtype=np.float32)
    counts = rng.poisson(MEAN_COUNT, size=n)
    for k in range(n):
        for _ in range(counts[k]):
            cy, cx = rng.uniform(1, SIZE - 1, size=2)
            imgs[k] += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * 0.8 ** 2))
        imgs[k] += 0.15 * rng.standard_normal((SIZE, SIZE))
    return imgs, counts


x_tr, c_tr = make_images(N_TRAIN, SEED + 1)
x_va, c_va = make_images(N_VAL, SEED + 2)
train_loader = DataLoader(TensorDataset(torch.from_numpy(x_tr)[:, None], torch.from_numpy(c_tr).float()),
                          batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(torch.from_numpy(x_va)[:, None], torch.from_numpy(c_va).float()), batch_size=500)
N_VAL_BATCHES = len(val_loader)
info(f"train images {N_TRAIN}  val images {N_VAL}  mean count {c_tr.mean():.2f}  max count {c_tr.max()}")


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, CH, 3, padding=1), nn.ReLU(),
            nn.Conv2d(CH, CH, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(CH, 2 * CH, 3, padding=1), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(2 * CH, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        h = self.features(x).sum(dim=(2, 3)) / 16.0
        return self.head(h).squeeze(1)


model = Counter()
info(f"model params: {sum(p.numel() for p in model.parameters()):,}")
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
criterion = nn.PoissonNLLLoss(log_input=True, full=True)


def forward_loss(batch):
    x, y = batch
    log_rate = model(x)
    loss = criterion(log_rate, y)
    return loss, {"loss": loss.item(), "mae": (log_rate.exp() - y).abs().mean().item()}


@torch.no_grad()
def evaluate():
    model.eval()
    tot, mae, n = 0.0, 0.0, 0
    for x, y in val_loader:
        log_rate = model(x)
        tot += criterion(log_rate, y).item() * len(x)
        mae += (log_rate.exp() - y).abs().sum().item()
        n += len(x)
    return {"loss": tot / n, "mae": mae / n}


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
