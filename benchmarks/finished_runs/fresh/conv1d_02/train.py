"""1-D conv net classifying noisy synthetic waveforms into 3 frequency bands."""
import math
import time
from pathlib import Path
import yaml
from tqdm import tqdm
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
SEQ_LEN = cfg["seq_len"]
N_CLASSES = cfg["n_classes"]
CHANNELS = cfg["channels"]
NOISE = cfg["noise"]

torch.set_num_threads(1)
torch.manual_seed(SEED)

def make_split(n):
    y = torch.randint(0, N_CLASSES, (n,))
    t = torch.arange(SEQ_LEN).float() / SEQ_LEN
    freq = (2.0 + 1.5 * y.float()).unsqueeze(1) + 0.4 * torch.randn(n, 1)
    phase = 2 * math.pi * torch.rand(n, 1)
    amp = 0.5 + torch.rand(n, 1)
    x = amp * torch.sin(2 * math.pi * freq * t + phase) + NOISE * torch.randn(n, SEQ_LEN)
    return x.unsqueeze(1), y


X_train, y_train = make_split(N_TRAIN)
X_val, y_val = make_split(N_VAL)
train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=250)
steps_per_epoch = len(train_loader)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, CHANNELS, kernel_size=7, padding=3),
            nn.ReLU(),
            nn.MaxPool1d(2),
            nn.Conv1d(CHANNELS, 2 * CHANNELS, kernel_size=5, padding=2),
            nn.ReLU(),
            nn.AdaptiveAvgPool1d(1),
        )
        self.head = nn.Linear(2 * CHANNELS, N_CLASSES)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


model = ConvNet()
criterion = nn.CrossEntropyLoss()


def forward_loss(batch):
    xb, yb = batch
    logits = model(xb)
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
    batches = tqdm(train_loader, desc=f"Epoch {epoch}/{EPOCHS}")
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
        batches.set_postfix(loss=f"{loss_val:.4f}", acc=f"{metric:.3f}")
    train_loss, train_metric = run_loss / run_n, run_metric / run_n
    val_loss, val_metric = evaluate()
    t_epoch = time.time() - t0
    tqdm.write(f"Epoch {epoch}/{EPOCHS}: train_loss={train_loss:.4f} train_acc={train_metric:.4f} val_loss={val_loss:.4f} val_acc={val_metric:.4f}")
