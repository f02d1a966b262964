"""GRU sequence tagger: per-token tags that depend on the token and on the 3 tokens before it."""
import math
import time
import json
from pathlib import Path
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, TensorDataset

with open(Path(__file__).with_name("config.json")) as f:
    cfg = json.load(f)

SEED = cfg["seed"]
LR = cfg["lr"]
BATCH_SIZE = cfg["batch_size"]
EPOCHS = cfg["epochs"]
WEIGHT_DECAY = cfg["weight_decay"]
LOG_EVERY = cfg["log_every"]
N_TRAIN = cfg["n_train"]
N_VAL = cfg["n_val"]
VOCAB = cfg["vocab"]
N_TAGS = cfg["n_tags"]
SEQ_LEN = cfg["seq_len"]
EMB = cfg["emb"]
HIDDEN = cfg["hidden"]
LAYERS = cfg["layers"]

torch.set_num_threads(1)
torch.manual_seed(SEED)

def make_split(n):
    tok = torch.randint(1, VOCAB, (n, SEQ_LEN))
    tags = tok % 4
    recent_small = torch.zeros(n, SEQ_LEN, dtype=torch.bool)
    for k in (1, 2, 3):
        recent_small[:, k:] |= tok[:, :-k] < 7
    tags[recent_small] = 4
    return tok, tags


X_train, y_train = make_split(N_TRAIN)
X_val, y_val = make_split(N_VAL)
train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=300)
steps_per_epoch = len(train_loader)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB)
        self.rnn = nn.GRU(EMB, HIDDEN, num_layers=LAYERS, batch_first=True)
        self.proj = nn.Linear(HIDDEN, N_TAGS)

    def forward(self, tok):
        h, _ = self.rnn(self.emb(tok))
        return self.proj(h)


model = Tagger()
criterion = nn.CrossEntropyLoss()


def forward_loss(batch):
    xb, yb = batch
    logits = model(xb)
    loss = criterion(logits.reshape(-1, N_TAGS), yb.reshape(-1))
    acc = (logits.argmax(-1) == yb).float().mean().item()
    return loss, acc, len(xb)


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
print("epoch,step,train_loss,train_tok_acc,val_loss,val_tok_acc,lr")
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
    print(f"{epoch},{global_step},{train_loss:.5f},{train_metric:.5f},{val_loss:.5f},{val_metric:.5f},{lr_now:.2e}")
