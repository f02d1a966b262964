"""Kim-style CNN sentence classifier on synthetic token sequences: 40 tokens from a vocabulary of 60; tokens 11-59
are filler, and each class is marked by one key bigram (5 6 -> class 0, 7 8 -> class 1, 9 10 -> class 2) placed at a
random position, with single key tokens sprinkled in as distractors; 5% of labels are resampled at random.
Embedding (32-d), parallel Conv1d filters of widths 2, 3, 4 (24 each), ReLU, max-over-time pooling, dropout 0.5,
a linear head; cross-entropy, Adam."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
LR, BATCH, EPOCHS, N_TRAIN = 0.001, 32, 6, 3000
MET = "acc"


def log_start(n_params, n_tr, n_va, lr, batch, epochs):
    print(f"Mudeli parameetreid: {n_params}")
    print(f"Treeningnäiteid: {n_tr}, valideerimisnäiteid: {n_va}")
    print(f"Õppimiskiirus: {lr}, partii suurus: {batch}, epohhe: {epochs}")


def log_step(epoch, i, n, loss, lr, gstep, el):
    if i % 12 == 0:
        print(f"   samm {i}/{n}: kadu {loss:.4f}")


def log_epoch(epoch, epochs, tl, tm, vl, vm, lr, gstep, el):
    print(f"Epohh {epoch}/{epochs}: treeningkadu {tl:.4f}, treeningtäpsus {tm:.4f}, "
          f"valideerimiskadu {vl:.4f}, valideerimistäpsus {vm:.4f}")


def log_end(vm, el):
    print(f"Treenimine lõpetatud ({el:.1f} s). Lõplik valideerimistäpsus: {vm:.4f}")
VOCAB, SEQ, N_CLASSES = 60, 40, 3
gen = torch.Generator().manual_seed(11)


def make_data(n):
    x = torch.randint(11, VOCAB, (n, SEQ), generator=gen)
    y = torch.randint(0, N_CLASSES, (n,), generator=gen)
    for k in range(n):
        for _ in range(3):
            x[k, int(torch.randint(0, SEQ, (1,), generator=gen))] = int(torch.randint(5, 11, (1,), generator=gen))
        p = int(torch.randint(0, SEQ - 1, (1,), generator=gen))
        x[k, p], x[k, p + 1] = 5 + 2 * int(y[k]), 6 + 2 * int(y[k])
    flip = torch.rand(n, generator=gen) < 0.05
    y[flip] = torch.randint(0, N_CLASSES, (int(flip.sum()),), generator=gen)
    return x, y


x_train, y_train = make_data(N_TRAIN)
x_val, y_val = make_data(1000)


class TextCNN(nn.Module):
    def __init__(self, d=32, n_filters=24, widths=(2, 3, 4), p=0.5):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.convs = nn.ModuleList([nn.Conv1d(d, n_filters, w) for w in widths])
        self.drop = nn.Dropout(p)
        self.fc = nn.Linear(n_filters * len(widths), N_CLASSES)

    def forward(self, x):
        e = self.emb(x).transpose(1, 2)
        h = torch.cat([F.relu(c(e)).max(dim=2).values for c in self.convs], dim=1)
        return self.fc(self.drop(h))


model = TextCNN()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
n_params = sum(p.numel() for p in model.parameters())
steps = (len(x_train) + BATCH - 1) // BATCH
log_start(n_params, len(x_train), len(x_val), LR, BATCH, EPOCHS)

gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    order = torch.randperm(len(x_train))
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
