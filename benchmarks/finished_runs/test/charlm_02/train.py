"""Character-level GRU language model on a synthetic toy-grammar corpus."""
import math
import random
import time
from pathlib import Path

import yaml
import torch
import torch.nn as nn

CONFIG_PATH = Path(__file__).with_name("config.yaml")
with open(CONFIG_PATH) as f:
    cfg = yaml.safe_load(f)
print(f"loaded config from {CONFIG_PATH.name}: {cfg}")

SEED = cfg["seed"]
SEQ_LEN = cfg["seq_len"]
BATCH_SIZE = cfg["batch_size"]
EMB = cfg["emb"]
HIDDEN = cfg["hidden"]
LR = cfg["lr"]
EPOCHS = cfg["epochs"]
STEPS_PER_EPOCH = cfg["steps_per_epoch"]
LOG_EVERY = cfg["log_every"]

torch.set_num_threads(1)
torch.manual_seed(SEED)
random.seed(SEED)

SUBJECTS = ["the cat", "a dog", "my neighbour", "the old man", "a small bird", "the teacher"]
VERBS = ["sees", "chases", "likes", "watches", "follows", "ignores"]
OBJECTS = ["the ball", "a red car", "the garden", "some fish", "the river", "a long letter"]
ENDINGS = [".", " today.", " again.", " every morning.", " in the rain."]


def make_corpus(n_sentences):
    return " ".join(f"{random.choice(SUBJECTS)} {random.choice(VERBS)} {random.choice(OBJECTS)}{random.choice(ENDINGS)}"
                    for _ in range(n_sentences))


text = make_corpus(6000)
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
split_at = int(0.9 * len(data))
train_data, val_data = data[:split_at], data[split_at:]
VOCAB = len(chars)
print(f"corpus: {len(text)} chars, vocab {VOCAB}")
val_steps = 10
steps_per_epoch = STEPS_PER_EPOCH


def get_batch(source, batch_size=BATCH_SIZE):
    ix = torch.randint(0, len(source) - SEQ_LEN - 1, (batch_size,))
    x = torch.stack([source[i:i + SEQ_LEN] for i in ix])
    y = torch.stack([source[i + 1:i + SEQ_LEN + 1] for i in ix])
    return x, y


class CharGRU(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB)
        self.gru = nn.GRU(EMB, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def forward(self, x):
        h, _ = self.gru(self.emb(x))
        return self.out(h)


model = CharGRU()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)

def grad_norm(module):
    total = 0.0
    for p in module.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return total ** 0.5


@torch.no_grad()
def evaluate():
    model.eval()
    g = torch.Generator().manual_seed(123)
    tot_loss, tot_correct, tot = 0.0, 0, 0
    for _ in range(val_steps):
        ix = torch.randint(0, len(val_data) - SEQ_LEN - 1, (BATCH_SIZE,), generator=g)
        x = torch.stack([val_data[i:i + SEQ_LEN] for i in ix])
        y = torch.stack([val_data[i + 1:i + SEQ_LEN + 1] for i in ix])
        logits = model(x)
        tot_loss += criterion(logits.reshape(-1, VOCAB), y.reshape(-1)).item()
        tot_correct += (logits.argmax(-1) == y).sum().item()
        tot += y.numel()
    return tot_loss / val_steps, tot_correct / tot


global_step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_correct, run_n = 0.0, 0, 0
    for step in range(1, steps_per_epoch + 1):
        xb, yb = get_batch(train_data)
        logits = model(xb)
        loss = criterion(logits.reshape(-1, VOCAB), yb.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        gnorm = grad_norm(model)
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        lr_now = optimizer.param_groups[0]["lr"]
        run_loss += loss_val
        run_correct += (logits.argmax(-1) == yb).float().mean().item()
        run_n += 1
    train_loss, train_metric = run_loss / run_n, run_correct / run_n
    val_loss, val_metric = evaluate()
    t_epoch = time.time() - t0
    print(f"Epoch {epoch:02d}/{EPOCHS} - Train Loss: {train_loss:.4f}, Train Acc: {100 * train_metric:.2f}% "
          f"- Val Loss: {val_loss:.4f}, Val Acc: {100 * val_metric:.2f}%")
