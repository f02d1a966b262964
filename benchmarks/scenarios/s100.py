"""Customer-review topic classifier (delivery / product quality / pricing / support): bag-of-words EmbeddingBag + MLP."""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 100
rng = np.random.default_rng(SEED)
torch.manual_seed(SEED)

VOCAB = 4000
TOPICS = ["delivery", "quality", "pricing", "support"]
N_KEY = 40                                   # topic keywords per class

# word frequencies follow a Zipf law; keywords sit in the mid-frequency range
zipf = 1.0 / np.arange(1, VOCAB + 1) ** 1.05
zipf /= zipf.sum()
keywords = rng.choice(np.arange(200, 2000), size=(len(TOPICS), N_KEY), replace=False)


def review(topic):
    length = rng.integers(12, 40)
    words = rng.choice(VOCAB, size=length, p=zipf)
    n_key = rng.binomial(length, 0.12)
    if n_key:
        words[rng.choice(length, n_key, replace=False)] = rng.choice(keywords[topic], n_key)
    # reviews often mention a second topic in passing
    if rng.random() < 0.4:
        other = rng.integers(len(TOPICS))
        words[rng.integers(length)] = rng.choice(keywords[other])
    return words


def corpus(n):
    labels = rng.integers(0, len(TOPICS), n)
    docs = [review(t) for t in labels]
    return docs, torch.tensor(labels)


def to_bag(docs):
    flat = torch.tensor(np.concatenate(docs), dtype=torch.long)
    offsets = torch.tensor(np.cumsum([0] + [len(d) for d in docs[:-1]]), dtype=torch.long)
    return flat, offsets


class BagClassifier(nn.Module):
    def __init__(self, vocab, emb=128, hidden=512, n_out=len(TOPICS)):
        super().__init__()
        self.bag = nn.EmbeddingBag(vocab, emb, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(emb, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, n_out))

    def forward(self, flat, offsets):
        return self.mlp(self.bag(flat, offsets))


# the labelling team has only annotated 320 reviews so far
train_docs, train_y = corpus(320)
val_docs, val_y = corpus(800)
val_flat, val_off = to_bag(val_docs)

model = BagClassifier(VOCAB)
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
EPOCHS, BS = 40, 32

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
    for epoch in range(EPOCHS):
        model.train()
        perm = rng.permutation(len(train_docs))
        tot, hit = 0.0, 0
        for i in range(0, len(perm), BS):
            idx = perm[i:i + BS]
            flat, off = to_bag([train_docs[j] for j in idx])
            yb = train_y[idx]
            logits = model(flat, off)
            loss = F.cross_entropy(logits, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            tot += loss.item() * len(idx)
            hit += (logits.argmax(1) == yb).sum().item()
        model.eval()
        with torch.no_grad():
            vlogits = model(val_flat, val_off)
            vl = F.cross_entropy(vlogits, val_y).item()
            va = (vlogits.argmax(1) == val_y).float().mean().item()
        tl, ta = tot / len(perm), hit / len(perm)
        w.writerow([epoch, f"{tl:.5f}", f"{ta:.4f}", f"{vl:.5f}", f"{va:.4f}"])
        if epoch % 4 == 0 or epoch == EPOCHS - 1:
            print(f"epoch {epoch:2d}  train {tl:.4f} acc {ta:.3f}  val {vl:.4f} acc {va:.3f}")
