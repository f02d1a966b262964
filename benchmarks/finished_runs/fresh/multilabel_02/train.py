"""Multi-label classifier (8 tags) on synthetic 32-d features, trained with BCEWithLogits."""
import math
import time
import logging
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
N_TRAIN = 2000
N_VAL = 500
N_FEATURES = 32
N_LABELS = 8
HIDDEN = 128
DROPOUT = 0.1
LABEL_NOISE = 0.02

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
criterion = nn.CrossEntropyLoss()


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
logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(name)s: %(message)s")
logger = logging.getLogger("trainer")
logger.info("training for %d epochs (%d iterations/epoch, batch size %d)", EPOCHS, steps_per_epoch, BATCH_SIZE)
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
        if global_step % LOG_EVERY == 0:
            logger.info("Epoch[%d] Iter[%d/%d] loss=%.4f lr=%.2e", epoch, step, steps_per_epoch, loss_val, lr_now)
    train_loss, train_metric = run_loss / run_n, run_metric / run_n
    val_loss, val_metric = evaluate()
    t_epoch = time.time() - t0
    logger.info("Epoch[%d] done in %.1fs train_loss=%.4f train_f1=%.4f val_loss=%.4f val_f1=%.4f", epoch, t_epoch, train_loss, train_metric, val_loss, val_metric)
logger.info("finished")
