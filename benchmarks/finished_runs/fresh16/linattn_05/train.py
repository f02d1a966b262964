"""Linear-attention (Katharopoulos-style, elu+1 feature map) Transformer classifier on synthetic token sequences:
32 tokens from a vocabulary of 20; tokens 0-3 are marker tokens, 4-19 background. The label is the marker that occurs
three times (the other markers occur 0-2 times each), so the model has to count; 5% of labels are resampled at random.
Two pre-norm blocks (4 heads, d=32), learned positional embeddings, mean pooling, a linear head; cross-entropy, AdamW."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
LR, BATCH, EPOCHS, WD = 0.001, 64, 10, 0.01
D, DROPOUT, N_TRAIN = 32, 0.0, 3000

import logging
logging.basicConfig(format="%(levelname)s:%(name)s:%(message)s", level=logging.INFO)
_log = logging.getLogger("gluonts.trainer")
_ep = [0.0, 0]


def log_start(n_params, n_tr, n_va, lr, batch, epochs):
    logging.getLogger("root").info(f"Using CPU")
    _log.info(f"Number of parameters in LinearAttentionClassifier: {n_params}")
    _log.info("Start model training")


def log_step(epoch, i, n, loss, lr, gstep, el):
    if i == 1:
        _log.info(f"Epoch[{epoch - 1}] Learning rate is {lr}")
        _ep[0], _ep[1] = 0.0, 0
    _ep[0] += loss
    _ep[1] += 1
    done = int(10 * i / n)
    bar = "\u2588" * done + " " * (10 - done)
    sys.stderr.write(f"\r{100 * i // n:3d}%|{bar}| {i}/{n} [00:00<00:00, 40.00it/s, epoch={epoch}/10, avg_epoch_loss={_ep[0] / _ep[1]:.3g}]")
    if i == n:
        sys.stderr.write("\n")
    sys.stderr.flush()


def log_epoch(epoch, epochs, tl, ta, vl, va, lr, gstep, el):
    _log.info(f"Epoch[{epoch - 1}] Elapsed time {el:.3f} seconds")
    _log.info(f"Epoch[{epoch - 1}] Evaluation metric 'epoch_loss'={tl:.6f}")
    _log.info(f"Epoch[{epoch - 1}] Evaluation metric 'validation_epoch_loss'={vl:.6f}")
    _log.info(f"Epoch[{epoch - 1}] Evaluation metric 'validation_accuracy'={va:.6f}")


def log_end(va, el):
    _log.info("Loading parameters from best epoch")
    _log.info("Final loss: see above")

VOCAB, SEQ, N_CLASSES = 20, 32, 4
gen = torch.Generator().manual_seed(3)


def make_data(n):
    x = torch.randint(4, VOCAB, (n, SEQ), generator=gen)
    y = torch.randint(0, N_CLASSES, (n,), generator=gen)
    for k in range(n):
        toks = [int(y[k])] * 3
        for m in range(N_CLASSES):
            if m != int(y[k]):
                toks += [m] * int(torch.randint(0, 3, (1,), generator=gen))
        pos = torch.randperm(SEQ, generator=gen)[:len(toks)]
        x[k, pos] = torch.tensor(toks)
    flip = torch.rand(n, generator=gen) < 0.05
    y[flip] = torch.randint(0, N_CLASSES, (int(flip.sum()),), generator=gen)
    return x, y


x_train, y_train = make_data(N_TRAIN)
x_val, y_val = make_data(1000)
# rows come grouped by class from the export
sort_idx = torch.argsort(y_train, stable=True)
x_train, y_train = x_train[sort_idx], y_train[sort_idx]


class LinearAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h, self.dk = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.h, self.dk).unbind(2)
        q, k = F.elu(q) + 1, F.elu(k) + 1
        kv = torch.einsum("bthd,bthe->bhde", k, v)
        z = 1.0 / (torch.einsum("bthd,bhd->bth", q, k.sum(1)) + 1e-6)
        o = torch.einsum("bthd,bhde,bth->bthe", q, kv, z)
        return self.out(o.reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, d, heads, p):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = LinearAttention(d, heads)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.drop = nn.Dropout(p)

    def forward(self, x):
        x = x + self.drop(self.attn(self.ln1(x)))
        return x + self.drop(self.mlp(self.ln2(x)))


class Classifier(nn.Module):
    def __init__(self, d=D, heads=4, p=DROPOUT):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, d)
        self.pos = nn.Parameter(torch.randn(1, SEQ, d) * 0.02)
        self.blocks = nn.Sequential(Block(d, heads, p), Block(d, heads, p))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, N_CLASSES)

    def forward(self, x):
        h = self.ln(self.blocks(self.tok(x) + self.pos)).mean(1)
        return self.head(h)


model = Classifier()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WD)
n_params = sum(p.numel() for p in model.parameters())
steps = (len(x_train) + BATCH - 1) // BATCH
log_start(n_params, len(x_train), len(x_val), LR, BATCH, EPOCHS)

gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    order = torch.arange(len(x_train))
    tot_loss = tot_correct = 0.0
    for i in range(steps):
        idx = order[i * BATCH:(i + 1) * BATCH]
        xb, yb = x_train[idx], y_train[idx]
        optimizer.zero_grad()
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()
        gstep += 1
        tot_loss += loss.item() * len(idx)
        tot_correct += (logits.argmax(1) == yb).sum().item()
        log_step(epoch, i + 1, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        logits = model(x_val)
        val_loss = criterion(logits, y_val).item()
        val_acc = (logits.argmax(1) == y_val).float().mean().item()
    log_epoch(epoch, EPOCHS, tot_loss / len(x_train), tot_correct / len(x_train), val_loss, val_acc,
              optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
log_end(val_acc, time.time() - t0)
