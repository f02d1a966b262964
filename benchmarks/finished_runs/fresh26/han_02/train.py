"""Hierarchical attention network (Yang et al. 2016 style) classifying synthetic documents into 4 topics.
Each document has 6 sentences of 10 word ids from an 80-word vocabulary (4 topics x 6 keywords + 56 filler words);
two random sentences carry two keywords of the document's topic, one other sentence carries one keyword of a
distractor topic, the rest is filler; 8% of training labels resampled. Documents are kept as text lines and encoded
by a torch Dataset. Model: 32-d word embeddings, word-level GRU (32) with additive attention pooling per sentence,
sentence-level GRU (32) with attention pooling, dropout, linear head to 4 topics. Adam, cross-entropy, validation
accuracy (chance 0.25)."""
import math
import random
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
random.seed(0)
NAME = "han"
MET = "val_acc"
LR, WEIGHT_DECAY, BATCH, EPOCHS = 3e-3, 0.0, 32, 8
N_TRAIN, N_VAL, SENTS, WORDS, TOPICS, DROPOUT = 2400, 600, 6, 10, 4, 0.2
LOG_EVERY = 25

def log_start(info):
    print(f"DEBUG: Checking if TrainHAN(docs={info['n_train']}) is complete")
    print(f"INFO: Informed scheduler that task   TrainHAN_{info['n_params']}_a91f3c   has status   PENDING")
    print("INFO: Done scheduling tasks")
    print("INFO: Running Worker with 1 processes")


def log_step(ep, i, n, loss):
    pass


def log_epoch(ep, E, m):
    print(f"INFO: [pid 4242] Worker Worker(salt=8841, workers=1, host=trainbox, pid=4242) running   TrainEpoch(epoch={ep})")
    print(f"INFO: TrainEpoch(epoch={ep}) loss={m['tl']:.4f} val_loss={m['vl']:.4f} val_acc={m['vm']:.4f}")
    print(f"INFO: [pid 4242] Worker Worker(salt=8841, workers=1, host=trainbox, pid=4242) done      TrainEpoch(epoch={ep})")


def log_end(m):
    print("INFO: ")
    print("===== Luigi Execution Summary =====")
    print("")
    print(f"Scheduled {EPOCHS + 1} tasks of which:")
    print(f"* {EPOCHS + 1} ran successfully:")
    print(f"    - {EPOCHS} TrainEpoch(epoch=1...{EPOCHS})")
    print(f"    - 1 TrainHAN(final val_acc={m['vm']:.4f})")
    print("")
    print("This progress looks :) because there were no failed tasks or missing dependencies")
    print("")
    print("===== Luigi Execution Summary =====")


def run_epochs(model, opt, train_batches, evaluate, step_fn, n_train, n_val):
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"name": NAME, "n_params": n_params, "n_train": n_train, "n_val": n_val})
    t_start = time.time()
    best = None
    prev_vl = None
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb = 0.0, 0
        batches = list(train_batches())
        for i, batch in enumerate(batches, 1):
            loss = step_fn(batch)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, len(batches), loss)
        model.eval()
        with torch.no_grad():
            vl, vm = evaluate()
        if best is None or (vm > best if MET == "val_acc" else vm < best):
            best = vm
        m = {"tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb}
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
    m["el"] = time.time() - t_start
    log_end(m)

from torch.utils.data import Dataset, DataLoader

rng = random.Random(5)
KEYWORDS = [[f"t{t}k{j}" for j in range(6)] for t in range(TOPICS)]
FILLER = [f"w{j}" for j in range(56)]
VOCAB = ["<pad>"] + [w for ks in KEYWORDS for w in ks] + FILLER
WORD2ID = {w: i for i, w in enumerate(VOCAB)}


def make_doc(topic):
    sents = [[rng.choice(FILLER) for _ in range(WORDS)] for _ in range(SENTS)]
    s1, s2, s3 = rng.sample(range(SENTS), 3)
    for s in (s1, s2):
        for pos in rng.sample(range(WORDS), 2):
            sents[s][pos] = rng.choice(KEYWORDS[topic])
    other = rng.choice([t for t in range(TOPICS) if t != topic])
    sents[s3][rng.randrange(WORDS)] = rng.choice(KEYWORDS[other])
    return " | ".join(" ".join(s) for s in sents)


labels = [rng.randrange(TOPICS) for _ in range(N_TRAIN + N_VAL)]
texts = [make_doc(t) for t in labels]
perm = list(range(N_TRAIN + N_VAL))
rng.shuffle(perm)
train_texts, train_labels = [texts[i] for i in perm[:N_TRAIN]], [labels[i] for i in perm[:N_TRAIN]]
val_texts, val_labels = [texts[i] for i in perm[N_TRAIN:]], [labels[i] for i in perm[N_TRAIN:]]
for i in range(N_TRAIN):
    if rng.random() < 0.08:
        train_labels[i] = rng.randrange(TOPICS)


class DocDataset(Dataset):
    def __init__(self, texts, labels):
        self.texts, self.labels = texts, labels

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, i):
        sents = [[WORD2ID[w] for w in s.split()] for s in self.texts[i].split(" | ")]
        return torch.tensor(sents), torch.tensor(self.labels[i])


class Attention(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.proj = nn.Linear(h, h)
        self.ctx = nn.Linear(h, 1, bias=False)

    def forward(self, seq):
        a = torch.softmax(self.ctx(torch.tanh(self.proj(seq))).squeeze(-1), dim=1)
        return (a.unsqueeze(-1) * seq).sum(1)


class HAN(nn.Module):
    def __init__(self, vocab=len(VOCAB), emb=32, hid=32, classes=TOPICS):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=0)
        self.word_gru = nn.GRU(emb, hid, batch_first=True)
        self.word_att = Attention(hid)
        self.sent_gru = nn.GRU(hid, hid, batch_first=True)
        self.sent_att = Attention(hid)
        self.drop = nn.Dropout(DROPOUT)
        self.head = nn.Linear(hid, classes)

    def forward(self, docs):
        b, s, w = docs.shape
        words, _ = self.word_gru(self.emb(docs.view(b * s, w)))
        sent_vecs = self.word_att(words).view(b, s, -1)
        sents, _ = self.sent_gru(sent_vecs)
        return self.head(self.drop(self.sent_att(sents)))


train_loader = DataLoader(DocDataset(train_texts, train_labels), batch_size=BATCH, shuffle=True)
val_loader = DataLoader(DocDataset(val_texts, val_labels), batch_size=200)
model = HAN()
opt = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
loss_fn = nn.CrossEntropyLoss()


def train_batches():
    return train_loader


def step_fn(batch):
    xb, yb = batch
    opt.zero_grad()
    loss = loss_fn(model(xb), yb)
    loss.backward()
    opt.step()
    return loss.item()


def evaluate():
    tot, correct, n = 0.0, 0, 0
    for xb, yb in val_loader:
        logits = model(xb)
        tot += loss_fn(logits, yb).item() * len(yb)
        correct += (logits.argmax(1) == yb).sum().item()
        n += len(yb)
    return tot / n, correct / n


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
