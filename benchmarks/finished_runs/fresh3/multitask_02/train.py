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
EPOCHS = 12
LOG_EVERY = 20
N_FEAT = 20
HIDDEN = 64
DROPOUT = 0.3
REG_WEIGHT = 1.0
N_TRAIN = 4000
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
        self.layers = [nn.Linear(N_FEAT, HIDDEN), nn.Linear(HIDDEN, HIDDEN)]
        self.drop = nn.Dropout(DROPOUT)
        self.cls_head = nn.Linear(HIDDEN, 3)
        self.reg_head = nn.Linear(HIDDEN, 1)

    def forward(self, x):
        h = x
        for layer in self.layers:
            h = self.drop(F.relu(layer(h)))
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

print(f"Train on {len(train_loader.dataset)} samples, validate on {len(val_loader.dataset)} samples")
for epoch in range(1, EPOCHS + 1):
    print(f"Epoch {epoch}/{EPOCHS}")
    model.train()
    t0 = time.time()
    sums, seen = {}, 0
    for step, batch in enumerate(train_loader, 1):
        optimizer.zero_grad()
        loss, metrics, n = forward_loss(batch)
        loss.backward()
        optimizer.step()
        sums["loss"] = sums.get("loss", 0.0) + loss.item() * n
        for k, v in metrics.items():
            sums[k] = sums.get(k, 0.0) + v * n
        seen += n
    val_loss, val_metrics = evaluate()
    dt = time.time() - t0
    parts = " - ".join(f"{k}: {v / seen:.4f}" for k, v in sums.items())
    vparts = " - ".join([f"val_loss: {val_loss:.4f}"] + [f"val_{k}: {v:.4f}" for k, v in val_metrics.items()])
    print(f"{steps_per_epoch}/{steps_per_epoch} [==============================] - {dt:.0f}s {1000 * dt / steps_per_epoch:.0f}ms/step - {parts} - {vparts}")
