"""Character-level CNN text classifier (Zhang, Zhao & LeCun 2015), a small version of the
CharCNN in srviest/char-cnn-text-classification-pytorch: one-hot quantised characters,
Conv1d(7)-pool3, Conv1d(7)-pool3, Conv1d(3) x2, pool3, two dropout FC layers.
Trained on a synthetic 4-topic "news headline" corpus; printed like Keras model.fit.
"""
import math
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
np.random.seed(1)
torch.set_num_threads(1)

ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789 .,;'-!?"
L = 120
EPOCHS = 10
BATCH_SIZE = 32
LR = 1e-3

TOPIC_WORDS = [
    ["match", "goal", "league", "coach", "season", "striker", "cup", "score"],
    ["market", "shares", "profit", "bank", "stocks", "investor", "trade", "rates"],
    ["software", "chip", "startup", "internet", "phone", "robot", "cloud", "data"],
    ["election", "minister", "vote", "senate", "party", "policy", "court", "law"],
]
FILLER = ("the a of to in on for with at by from new says report after over year week "
          "people city world first plan could may will more than two three").split()


def headline(rng, c):
    words = []
    n = rng.randint(10, 17)
    n_topic = rng.randint(3, 6)
    pos = set(rng.choice(n, size=n_topic, replace=False).tolist())
    for i in range(n):
        if i in pos:
            words.append(TOPIC_WORDS[c][rng.randint(8)])
        elif rng.rand() < 0.08:
            words.append(TOPIC_WORDS[rng.randint(4)][rng.randint(8)])   # distractor word
        else:
            words.append(FILLER[rng.randint(len(FILLER))])
    return " ".join(words) + rng.choice([".", "!", "?", ""])


def make_corpus(n, rng):
    y = rng.randint(0, 4, size=n)
    return [headline(rng, c) for c in y], y


def quantize(texts):
    idx = {ch: i for i, ch in enumerate(ALPHABET)}
    X = np.zeros((len(texts), len(ALPHABET), L), dtype=np.float32)
    for n, t in enumerate(texts):
        for j, ch in enumerate(t.lower()[:L]):
            if ch in idx:
                X[n, idx[ch], j] = 1.0
    return torch.from_numpy(X)


rng = np.random.RandomState(1)
tr_text, tr_y = make_corpus(2000, rng)
va_text, va_y = make_corpus(600, rng)
Xtr, ytr = quantize(tr_text), torch.from_numpy(tr_y).long()
Xva, yva = quantize(va_text), torch.from_numpy(va_y).long()


class CharCNN(nn.Module):
    def __init__(self, n_chars, n_classes, nf=48, nfc=128, dropout=0.5):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv1d(n_chars, nf, kernel_size=7), nn.ReLU(), nn.MaxPool1d(3))
        self.conv2 = nn.Sequential(nn.Conv1d(nf, nf, kernel_size=7), nn.ReLU(), nn.MaxPool1d(3))
        self.conv3 = nn.Sequential(nn.Conv1d(nf, nf, kernel_size=3), nn.ReLU())
        self.conv4 = nn.Sequential(nn.Conv1d(nf, nf, kernel_size=3), nn.ReLU(), nn.MaxPool1d(3))
        out_len = ((((L - 6) // 3 - 6) // 3 - 2) - 2) // 3
        self.fc1 = nn.Sequential(nn.Linear(nf * out_len, nfc), nn.ReLU(), nn.Dropout(dropout))
        self.fc2 = nn.Sequential(nn.Linear(nfc, nfc), nn.ReLU(), nn.Dropout(dropout))
        self.fc3 = nn.Linear(nfc, n_classes)

    def forward(self, x):
        x = self.conv4(self.conv3(self.conv2(self.conv1(x))))
        x = x.flatten(1)
        x = self.fc2(self.fc1(x))
        return self.fc3(x)


model = CharCNN(len(ALPHABET), 4)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
criterion = nn.CrossEntropyLoss()

print(f"Found {len(tr_y)} training and {len(va_y)} validation headlines, alphabet size {len(ALPHABET)}, l0={L}")
print(f"Model: CharCNN  Trainable params: {sum(p.numel() for p in model.parameters() if p.requires_grad):,}")


def progress(step, total, elapsed, loss, acc, final=None):
    width = 30
    done = int(width * step / total)
    bar = "=" * max(done - 1, 0) + (">" if step < total else "=") + "." * (width - done)
    if final is None:
        eta = elapsed / step * (total - step)
        sys.stdout.write(f"\r{step:3d}/{total} [{bar}] - ETA: {eta:.0f}s - loss: {loss:.4f} - accuracy: {acc:.4f}")
    else:
        sys.stdout.write(f"\r{step:3d}/{total} [{bar}] - {elapsed:.0f}s {1000 * elapsed / total:.0f}ms/step - "
                         f"loss: {loss:.4f} - accuracy: {acc:.4f} - val_loss: {final[0]:.4f} - val_accuracy: {final[1]:.4f}\n")


for epoch in range(EPOCHS):
    print(f"Epoch {epoch + 1}/{EPOCHS}")
    model.train()
    order = torch.randperm(len(ytr))
    steps = math.ceil(len(order) / BATCH_SIZE)
    t0 = time.time()
    tot, correct, seen = 0.0, 0, 0
    for s in range(steps):
        idx = order[s * BATCH_SIZE:(s + 1) * BATCH_SIZE]
        xb, yb = Xtr[idx], ytr[idx]
        logits = model(xb)
        loss = criterion(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(yb)
        correct += (logits.argmax(1) == yb).sum().item()
        seen += len(yb)
        if (s + 1) % 16 == 0 and s + 1 < steps:
            progress(s + 1, steps, time.time() - t0, tot / seen, correct / seen)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = criterion(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    progress(steps, steps, time.time() - t0, tot / seen, correct / seen, final=(vl, va))
