"""LSTM classifier on synthetic noisy sine sequences (class = frequency)."""
import math
import time
from tqdm import tqdm
import torch
import torch.nn as nn

SEED = 0
SEQ_LEN = 30
N_CLASSES = 3
N_TRAIN = 1500
N_VAL = 500
NOISE = 0.3
HIDDEN = 32
LR = 0.003
BATCH_SIZE = 64
EPOCHS = 15
LOG_EVERY = 8

torch.set_num_threads(1)
torch.manual_seed(SEED)

FREQS = torch.tensor([0.25, 0.5, 0.8])


def make_sequences(n, g):
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    t = torch.arange(SEQ_LEN, dtype=torch.float32)
    phase = 2 * math.pi * torch.rand(n, 1, generator=g)
    amp = 0.5 + torch.rand(n, 1, generator=g)
    signal = amp * torch.sin(FREQS[y][:, None] * t[None, :] + phase)
    x = torch.stack([signal + NOISE * torch.randn(n, SEQ_LEN, generator=g),
                     NOISE * torch.randn(n, SEQ_LEN, generator=g)], dim=-1)
    return x, y


gen = torch.Generator().manual_seed(SEED)
X_train, y_train = make_sequences(N_TRAIN, gen)
X_val, y_val = make_sequences(N_VAL, gen)
steps_per_epoch = math.ceil(N_TRAIN / BATCH_SIZE)
val_steps = 1


def iterate_minibatches(x, y, batch_size, shuffle=True):
    order = torch.randperm(len(x)) if shuffle else torch.arange(len(x))
    for start in range(0, len(x), batch_size):
        idx = order[start:start + batch_size]
        yield x[idx], y[idx]


class SeqClassifier(nn.Module):
    def __init__(self, n_in, hidden, n_classes):
        super().__init__()
        self.rnn = nn.LSTM(n_in, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        out, (h, c) = self.rnn(x)
        return self.head(h[-1])


model = SeqClassifier(2, HIDDEN, N_CLASSES)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.head.parameters(), lr=LR)

def grad_norm(module):
    total = 0.0
    for p in module.parameters():
        if p.grad is not None:
            total += p.grad.detach().pow(2).sum().item()
    return total ** 0.5


global_step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_correct, run_n = 0.0, 0, 0
    pbar = tqdm(total=steps_per_epoch, desc=f"Epoch {epoch}/{EPOCHS}")
    for step, (xb, yb) in enumerate(iterate_minibatches(X_train, y_train, BATCH_SIZE), 1):
        optimizer.zero_grad()
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        gnorm = grad_norm(model)
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        lr_now = optimizer.param_groups[0]["lr"]
        run_loss += loss_val * len(yb)
        run_correct += (logits.argmax(1) == yb).sum().item()
        run_n += len(yb)
        pbar.update(1)
        pbar.set_postfix(loss=f"{loss_val:.4f}")
    train_loss, train_metric = run_loss / run_n, run_correct / run_n
    model.eval()
    with torch.no_grad():
        val_logits = model(X_val)
        val_loss = criterion(val_logits, y_val).item()
        val_metric = (val_logits.argmax(1) == y_val).float().mean().item()
    t_epoch = time.time() - t0
    pbar.close()
    print(f"Epoch {epoch}: train loss {train_loss:.4f}, val loss {val_loss:.4f}, val acc {val_metric:.4f}", flush=True)
