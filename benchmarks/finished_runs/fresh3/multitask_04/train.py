"""Multi-task MLP: a shared trunk with two heads on synthetic tabular data -- a 3-way
classification head (cross-entropy) and a regression head (MSE), trained on the sum of the
two losses."""
import math
import time
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
LR = 1e-3
WEIGHT_DECAY = 1e-4
BATCH_SIZE = 64
EPOCHS = 30
LOG_EVERY = 13
N_FEAT = 20
HIDDEN = 64
DROPOUT = 0.5
REG_WEIGHT = 1.0
N_TRAIN = 800
N_VAL = 1000

torch.set_num_threads(1)
torch.manual_seed(SEED)
print(f"seed={SEED} lr={LR} wd={WEIGHT_DECAY} batch={BATCH_SIZE} epochs={EPOCHS} hidden={HIDDEN} dropout={DROPOUT}")

g = torch.Generator().manual_seed(7)
W_CLS = torch.randn(N_FEAT, 3, generator=g) / math.sqrt(N_FEAT)
Q_CLS = torch.randn(5, 3, generator=g)
W_REG = torch.randn(N_FEAT, generator=g) / math.sqrt(N_FEAT)


def make_split(n, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, N_FEAT, generator=gen)
    score = 2.0 * x @ W_CLS + 0.5 * (x[:, :5] ** 2) @ Q_CLS + 0.5 * torch.randn(n, 3, generator=gen)
    y_cls = score.argmax(dim=1)
    y_reg = torch.sin(2.0 * x @ W_REG) + 0.5 * x[:, 5] * x[:, 6] + 0.1 * torch.randn(n, generator=gen)
    return x, y_cls, y_reg


x_tr, yc_tr, yr_tr = make_split(N_TRAIN, SEED + 1)
x_va, yc_va, yr_va = make_split(N_VAL, SEED + 2)
train_loader = DataLoader(TensorDataset(x_tr, yc_tr, yr_tr), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(x_va, yc_va, yr_va), batch_size=500)
steps_per_epoch = len(train_loader)
print(f"train {len(x_tr)}  val {len(x_va)}  class balance {torch.bincount(yc_tr, minlength=3).tolist()}  reg target std {yr_tr.std():.3f}")


class MultiTaskNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Linear(N_FEAT, HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT),
            nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT),
        )
        self.cls_head = nn.Linear(HIDDEN, 3)
        self.reg_head = nn.Linear(HIDDEN, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.cls_head(h), self.reg_head(h).squeeze(-1)


model = MultiTaskNet()
print(model)
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)


def forward_loss(batch):
    xb, yc, yr = batch
    logits, reg = model(xb)
    loss_cls = F.cross_entropy(logits, yc)
    loss_reg = F.mse_loss(reg, yr)
    loss = loss_cls + REG_WEIGHT * loss_reg
    acc = (logits.argmax(-1) == yc).float().mean().item()
    mae = (reg - yr).abs().mean().item()
    return loss, {"acc": acc, "mae": mae}, len(xb)


@torch.no_grad()
def evaluate():
    model.eval()
    tot_loss, tot_acc, tot_mae, tot_n = 0.0, 0.0, 0.0, 0
    for batch in val_loader:
        loss, metrics, n = forward_loss(batch)
        tot_loss += loss.item() * n
        tot_acc += metrics["acc"] * n
        tot_mae += metrics["mae"] * n
        tot_n += n
    return tot_loss / tot_n, {"acc": tot_acc / tot_n, "mae": tot_mae / tot_n}

t_start = time.time()
model.train()
for epoch in range(1, EPOCHS + 1):
    run_loss, run_n = 0.0, 0
    sums = {}
    for step, batch in enumerate(train_loader, 1):
        optimizer.zero_grad()
        loss, metrics, n = forward_loss(batch)
        loss.backward()
        optimizer.step()
        run_loss += loss.item() * n
        run_n += n
        for k, v in metrics.items():
            sums[k] = sums.get(k, 0.0) + v * n
        if step % LOG_EVERY == 0:
            print(f"  [{epoch}, {step:4d}] loss: {loss.item():.4f}")
    val_loss, val_metrics = evaluate()
    train_str = ", ".join(f"train {k} {v / run_n:.4f}" for k, v in sums.items())
    val_str = ", ".join(f"val {k} {v:.4f}" for k, v in val_metrics.items())
    print(f"epoch {epoch}: train loss {run_loss / run_n:.4f}, {train_str}, val loss {val_loss:.4f}, {val_str}")
print(f"done in {time.time() - t_start:.1f}s")
