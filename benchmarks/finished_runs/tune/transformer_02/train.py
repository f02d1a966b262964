"""Tiny transformer encoder: does token A occur more often than token B? (binary)"""
import math
import time
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
VOCAB_SIZE = 24
SEQ_LEN = 16
N_TRAIN = 3000
N_VAL = 600
D_MODEL = 32
N_HEADS = 4
N_LAYERS = 2
DROPOUT = 0.1
LR = 0.003
BATCH_SIZE = 64
EPOCHS = 10
LOG_EVERY = 10
WARMUP_STEPS = 60

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
total_steps = EPOCHS * steps_per_epoch

def lr_lambda(s):
    if s < WARMUP_STEPS:
        return (s + 1) / WARMUP_STEPS
    return max(0.0, (total_steps - s) / (total_steps - WARMUP_STEPS))

scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)

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


t_train_start = time.time()
window_loss, window_n, loss_total = 0.0, 0, 0.0
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
        scheduler.step()
        global_step += 1
        loss_val = loss.item()
        lr_now = optimizer.param_groups[0]["lr"]
        run_loss += loss_val * len(labels)
        run_correct += (logits.argmax(-1) == labels).sum().item()
        run_n += len(labels)
        window_loss += loss_val
        window_n += 1
        loss_total += loss_val
        if global_step % LOG_EVERY == 0:
            print({'loss': round(window_loss / window_n, 4), 'grad_norm': gnorm, 'learning_rate': lr_now, 'epoch': round(global_step / steps_per_epoch, 2)})
            window_loss, window_n = 0.0, 0
    train_loss, train_metric = run_loss / run_n, run_correct / run_n
    val_loss, val_metric = evaluate()
    t_epoch = time.time() - t0
    print({'eval_loss': val_loss, 'eval_accuracy': val_metric, 'eval_runtime': round(t_epoch * 0.1, 4), 'eval_samples_per_second': round(val_steps * 256 / max(t_epoch * 0.1, 1e-6), 3), 'eval_steps_per_second': round(val_steps / max(t_epoch * 0.1, 1e-6), 3), 'epoch': float(epoch)})
train_runtime = time.time() - t_train_start
print({'train_runtime': round(train_runtime, 4), 'train_samples_per_second': round(global_step * BATCH_SIZE / train_runtime, 3), 'train_steps_per_second': round(global_step / train_runtime, 3), 'train_loss': loss_total / global_step, 'epoch': float(EPOCHS)})
