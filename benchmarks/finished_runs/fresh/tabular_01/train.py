"""Tabular binary classifier: numeric features + two categorical columns (embeddings), MLP with BatchNorm."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, TensorDataset

SEED = 0
LR = 0.001
BATCH_SIZE = 64
EPOCHS = 12
WEIGHT_DECAY = 0.0
LOG_EVERY = 10
N_TRAIN = 2400
N_VAL = 600
N_NUM = 6
CARD_A = 12
CARD_B = 5
HIDDEN = 64
DROPOUT = 0.4

torch.set_num_threads(1)
torch.manual_seed(SEED)

EFFECT_A = 1.2 * torch.randn(CARD_A)
EFFECT_B = 0.8 * torch.randn(CARD_B)


def make_split(n):
    x_num = torch.randn(n, N_NUM)
    cat_a = torch.randint(0, CARD_A, (n,))
    cat_b = torch.randint(0, CARD_B, (n,))
    score = 1.5 * x_num[:, 0] - x_num[:, 1] * x_num[:, 2] + EFFECT_A[cat_a] + EFFECT_B[cat_b] + 0.5 * torch.randn(n)
    y = (score > 0).long()
    return x_num, cat_a, cat_b, y


train_split = make_split(N_TRAIN)
val_split = make_split(N_VAL)
train_loader = DataLoader(TensorDataset(*train_split), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(*val_split), batch_size=300)
steps_per_epoch = len(train_loader)


class TabularNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb_a = nn.Embedding(CARD_A, 4)
        self.emb_b = nn.Embedding(CARD_B, 3)
        self.mlp = nn.Sequential(
            nn.Linear(N_NUM + 4 + 3, HIDDEN),
            nn.BatchNorm1d(HIDDEN),
            nn.ReLU(),
            nn.Dropout(DROPOUT),
            nn.Linear(HIDDEN, HIDDEN),
            nn.BatchNorm1d(HIDDEN),
            nn.ReLU(),
            nn.Dropout(DROPOUT),
            nn.Linear(HIDDEN, 2),
        )

    def forward(self, x_num, cat_a, cat_b):
        h = torch.cat([x_num, self.emb_a(cat_a), self.emb_b(cat_b)], dim=1)
        return self.mlp(h)


model = TabularNet()
criterion = nn.CrossEntropyLoss()


def forward_loss(batch):
    x_num, cat_a, cat_b, yb = batch
    logits = model(x_num, cat_a, cat_b)
    loss = criterion(logits, yb)
    acc = (logits.argmax(1) == yb).float().mean().item()
    return loss, acc, len(yb)


optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)


@torch.no_grad()
def evaluate():
    model.eval()
    tot_loss, tot_metric, tot_n = 0.0, 0.0, 0
    for batch in val_loader:
        loss, metric, n = forward_loss(batch)
        tot_loss += loss.item() * n
        tot_metric += metric * n
        tot_n += n
    return tot_loss / tot_n, tot_metric / tot_n


global_step = 0
total_steps = EPOCHS * steps_per_epoch
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_metric, run_n = 0.0, 0.0, 0
    print(f"Epoch {epoch}/{EPOCHS}")
    batches = train_loader
    t_step = time.time()
    for step, batch in enumerate(batches, 1):
        optimizer.zero_grad()
        loss, metric, n = forward_loss(batch)
        loss.backward()
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        lr_now = optimizer.param_groups[0]["lr"]
        run_loss += loss_val * n
        run_metric += metric * n
        run_n += n
        step_ms = (time.time() - t_step) * 1000
        t_step = time.time()
    train_loss, train_metric = run_loss / run_n, run_metric / run_n
    val_loss, val_metric = evaluate()
    t_epoch = time.time() - t0
    print(f"{steps_per_epoch}/{steps_per_epoch} - {t_epoch:.0f}s - {1000 * t_epoch / steps_per_epoch:.0f}ms/step - loss: {train_loss:.4f} - acc: {train_metric:.4f} - val_loss: {val_loss:.4f} - val_acc: {val_metric:.4f}")
