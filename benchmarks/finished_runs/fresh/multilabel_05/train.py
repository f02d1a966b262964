"""Multi-label classifier (8 tags) on synthetic 32-d features, trained with BCEWithLogits."""
import math
import time
from pathlib import Path
import yaml
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, TensorDataset

with open(Path(__file__).with_name("config.yaml")) as f:
    cfg = yaml.safe_load(f)

SEED = cfg["seed"]
LR = cfg["lr"]
BATCH_SIZE = cfg["batch_size"]
EPOCHS = cfg["epochs"]
WEIGHT_DECAY = cfg["weight_decay"]
LOG_EVERY = cfg["log_every"]
N_TRAIN = cfg["n_train"]
N_VAL = cfg["n_val"]
N_FEATURES = cfg["n_features"]
N_LABELS = cfg["n_labels"]
HIDDEN = cfg["hidden"]
DROPOUT = cfg["dropout"]
LABEL_NOISE = cfg["label_noise"]

torch.set_num_threads(1)
torch.manual_seed(SEED)

W_TRUE = torch.randn(N_FEATURES, N_LABELS)


def make_split(n):
    x = torch.randn(n, N_FEATURES)
    score = 3.0 * (x @ W_TRUE) / math.sqrt(N_FEATURES) + 0.8 * torch.sin(2 * x[:, :N_LABELS]) - 0.7
    y = (score > 0).float()
    flip = torch.rand(n, N_LABELS) < LABEL_NOISE
    y[flip] = 1.0 - y[flip]
    return x, y


X_train, y_train = make_split(N_TRAIN)
X_val, y_val = make_split(N_VAL)
train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=250)
steps_per_epoch = len(train_loader)


model = nn.Sequential(
    nn.Linear(N_FEATURES, HIDDEN),
    nn.ReLU(),
    nn.Dropout(DROPOUT),
    nn.Linear(HIDDEN, HIDDEN),
    nn.ReLU(),
    nn.Linear(HIDDEN, N_LABELS),
)
criterion = nn.BCEWithLogitsLoss()


def micro_f1(logits, y):
    pred = (logits > 0).float()
    tp = (pred * y).sum()
    fp = (pred * (1 - y)).sum()
    fn = ((1 - pred) * y).sum()
    return (2 * tp / (2 * tp + fp + fn).clamp(min=1.0)).item()


def forward_loss(batch):
    xb, yb = batch
    logits = model(xb)
    loss = criterion(logits, yb)
    return loss, micro_f1(logits, yb), len(yb)


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
header = f"{'epoch':>5} | {'train_loss':>10} | {'train_f1':>10} | {'val_loss':>9} | {'val_f1':>9} | {'lr':>8} | {'sec':>5}"
print(header)
print("-" * len(header))
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_metric, run_n = 0.0, 0.0, 0
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
    print(f"{epoch:>5} | {train_loss:>10.4f} | {train_metric:>10.4f} | {val_loss:>9.4f} | {val_metric:>9.4f} | {lr_now:>8.1e} | {t_epoch:>5.1f}")
