"""Tiny transformer encoder: does token A occur more often than token B? (binary)"""
import math
import time
import json
from pathlib import Path
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

with open(Path(__file__).with_name("config.json")) as f:
    cfg = json.load(f)

SEED = cfg["seed"]
VOCAB_SIZE = cfg["vocab_size"]
SEQ_LEN = cfg["seq_len"]
N_TRAIN = cfg["n_train"]
N_VAL = cfg["n_val"]
D_MODEL = cfg["d_model"]
N_HEADS = cfg["n_heads"]
N_LAYERS = cfg["n_layers"]
DROPOUT = cfg["dropout"]
LR = cfg["lr"]
BATCH_SIZE = cfg["batch_size"]
EPOCHS = cfg["epochs"]
LOG_EVERY = cfg["log_every"]

torch.set_num_threads(1)
torch.manual_seed(SEED)
TOKEN_A, TOKEN_B = 3, 4


def make_counting_data(n, g):
    probs = torch.full((VOCAB_SIZE,), 1.0)
    probs[TOKEN_A] = probs[TOKEN_B] = 4.0
    tokens = torch.multinomial(probs / probs.sum(), n * SEQ_LEN, replacement=True, generator=g)
    tokens = tokens.view(n, SEQ_LEN)
    labels = ((tokens == TOKEN_A).sum(1) > (tokens == TOKEN_B).sum(1)).long()
    return tokens, labels


g = torch.Generator().manual_seed(SEED)
tok_train, lab_train = make_counting_data(N_TRAIN, g)
tok_val, lab_val = make_counting_data(N_VAL, g)
train_loader = DataLoader(TensorDataset(tok_train, lab_train), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(tok_val, lab_val), batch_size=200)
steps_per_epoch = len(train_loader)
val_steps = len(val_loader)


class TinyTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB_SIZE, D_MODEL)
        self.pos = nn.Parameter(torch.randn(1, SEQ_LEN, D_MODEL) * 0.02)
        layer = nn.TransformerEncoderLayer(D_MODEL, N_HEADS, dim_feedforward=4 * D_MODEL,
                                           dropout=DROPOUT, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, N_LAYERS)
        self.classifier = nn.Linear(D_MODEL, 2)

    def forward(self, tokens):
        h = self.embed(tokens) * math.sqrt(D_MODEL) + self.pos
        h = self.encoder(h)
        return self.classifier(h.mean(dim=1))


model = TinyTransformer()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)

def grad_norm(module):
    total = 0.0
    for p in module.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return total ** 0.5


@torch.no_grad()
def evaluate():
    model.eval()
    losses, correct = [], 0
    for tokens, labels in val_loader:
        logits = model(tokens)
        losses.append(criterion(logits, labels).item() * len(labels))
        correct += (logits.argmax(-1) == labels).sum().item()
    return sum(losses) / len(tok_val), correct / len(tok_val)


global_step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_correct, run_n = 0.0, 0, 0
    for step, (tokens, labels) in enumerate(train_loader, 1):
        logits = model(tokens)
        loss = criterion(logits, labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        gnorm = grad_norm(model)
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        lr_now = optimizer.param_groups[0]["lr"]
        run_loss += loss_val * len(labels)
        run_correct += (logits.argmax(-1) == labels).sum().item()
        run_n += len(labels)
        if global_step == 1 or global_step % LOG_EVERY == 0:
            print(f"step {global_step:>4d} loss {loss_val:.4e} grad_norm {gnorm:.4e}")
    train_loss, train_metric = run_loss / run_n, run_correct / run_n
    val_loss, val_metric = evaluate()
    t_epoch = time.time() - t0
    print(f"step {global_step:>4d} val_loss {val_loss:.4e} val_acc {val_metric:.4f}")
