# FNet text classifier (Lee-Thorp et al., "FNet: Mixing Tokens with Fourier Transforms", NAACL 2022), adapted from
# rishikksh20/FNet-pytorch: token + position embeddings, encoder blocks whose self-attention is replaced by the real
# part of a 2-D FFT over (sequence, hidden), post-LayerNorm residuals and a GELU feed-forward, mean pooling and a
# linear classifier; AdamW with linear warmup and decay. Data: synthetic 4-class "intent" token sequences.
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import tqdm

SEED = 29
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)

VOCAB, SEQ_LEN, N_CLASSES = 60, 32, 4
N_TRAIN, N_VAL = 3200, 800
DIM, FF_DIM, DEPTH = 48, 96, 2
DROPOUT = 0.1
LR = 2e-3
WEIGHT_DECAY = 0.01
WARMUP_RATIO = 0.1
BATCH_SIZE = 32
EPOCHS = 6
LABEL_NOISE = 0.05

rng = np.random.RandomState(SEED)
# each intent is marked by a pair of cue tokens somewhere in the sequence; half of the sequences also carry one lone
# cue token of another intent as a distractor
CUES = [(4, 9), (13, 21), (6, 17), (2, 11)]


def make_split(n):
    x = rng.randint(25, VOCAB, (n, SEQ_LEN))
    y = rng.randint(0, N_CLASSES, n)
    for i in range(n):
        a, b = CUES[y[i]]
        p, q = sorted(rng.choice(SEQ_LEN, 2, replace=False))
        x[i, p], x[i, q] = a, b
        if rng.rand() < 0.5:  # distractor: a lone cue token of another intent
            other = CUES[(y[i] + rng.randint(1, 4)) % 4]
            free = [j for j in range(SEQ_LEN) if j not in (p, q)]
            x[i, rng.choice(free)] = other[rng.randint(2)]
    noisy = rng.rand(n) < LABEL_NOISE
    y[noisy] = rng.randint(0, N_CLASSES, noisy.sum())
    return torch.tensor(x), torch.tensor(y)


x_train, y_train = make_split(N_TRAIN)
x_val, y_val = make_split(N_VAL)


class FourierMix(nn.Module):
    def forward(self, x):
        return torch.fft.fft(torch.fft.fft(x, dim=-1), dim=-2).real


class FNetBlock(nn.Module):
    def __init__(self, dim, ff_dim, dropout):
        super().__init__()
        self.mix = FourierMix()
        self.norm1 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, ff_dim), nn.GELU(), nn.Dropout(dropout), nn.Linear(ff_dim, dim),
                                nn.Dropout(dropout))
        self.norm2 = nn.LayerNorm(dim)

    def forward(self, x):
        x = self.norm1(x + self.mix(x))
        return self.norm2(x + self.ff(x))


class FNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Embedding(SEQ_LEN, DIM)
        self.emb_norm = nn.LayerNorm(DIM)
        self.blocks = nn.ModuleList([FNetBlock(DIM, FF_DIM, DROPOUT) for _ in range(DEPTH)])
        self.head = nn.Linear(DIM, N_CLASSES)

    def forward(self, x):
        h = self.emb_norm(self.tok(x) + self.pos(torch.arange(x.size(1))))
        for blk in self.blocks:
            h = blk(h)
        return self.head(h.mean(1))


model = FNet()
#INIT
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
steps_per_epoch = math.ceil(N_TRAIN / BATCH_SIZE)
total_steps = steps_per_epoch * EPOCHS
warmup_steps = int(WARMUP_RATIO * total_steps)


def lr_lambda(step):
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    return max(0.0, (total_steps - step) / max(1, total_steps - warmup_steps))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_train, y_train), batch_size=BATCH_SIZE,
                                           shuffle=True)


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(x_val)
        return F.cross_entropy(logits, y_val).item(), (logits.argmax(1) == y_val).float().mean().item()


LOGGING_STEPS = 25
print("***** Running training *****")
print(f"  Num examples = {N_TRAIN}")
print(f"  Num Epochs = {EPOCHS}")
print(f"  Instantaneous batch size per device = {BATCH_SIZE}")
print(f"  Total optimization steps = {total_steps}")
print(f"  Number of trainable parameters = {sum(p.numel() for p in model.parameters() if p.requires_grad)}")
t_start, global_step, run_loss, run_n, all_loss, all_n = time.time(), 0, 0.0, 0, 0.0, 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    for xb, yb in train_loader:
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        grad_norm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters() if p.grad is not None))
        optimizer.step()
        scheduler.step()
        global_step += 1
        run_loss += loss.item(); run_n += 1; all_loss += loss.item(); all_n += 1
        if global_step % LOGGING_STEPS == 0:
            print({'loss': round(run_loss / run_n, 4), 'grad_norm': round(float(grad_norm), 4),
                   'learning_rate': float(f"{scheduler.get_last_lr()[0]:.4e}"),
                   'epoch': round(global_step / steps_per_epoch, 2)})
            run_loss, run_n = 0.0, 0
    t_eval = time.time()
    val_loss, val_acc = evaluate()
    rt = time.time() - t_eval
    print({'eval_loss': round(val_loss, 4), 'eval_accuracy': round(val_acc, 4), 'eval_runtime': round(rt, 4),
           'eval_samples_per_second': round(N_VAL / rt, 3), 'epoch': float(epoch)})
rt = time.time() - t_start
print({'train_runtime': round(rt, 4), 'train_samples_per_second': round(N_TRAIN * EPOCHS / rt, 3),
       'train_steps_per_second': round(total_steps / rt, 3), 'train_loss': round(all_loss / all_n, 4),
       'epoch': float(EPOCHS)})
