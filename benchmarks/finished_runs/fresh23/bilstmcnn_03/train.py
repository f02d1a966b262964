"""BiLSTM-CNN named-entity tagger without a CRF (Chiu & Nichols / Ma & Hovy style): each word is a character
sequence (up to 10 chars) encoded by a char CNN (16-d char embeddings, 32 filters of width 3, max-pool) and concatenated
with a 32-d word embedding (words seen fewer than 2 times in training map to UNK), a one-layer BiLSTM (32 per direction),
dropout 0.3, a linear layer to 4 tags (O, PER, LOC, ORG) and per-token cross-entropy, Adam. Synthetic sentences of 10
words: lowercase filler words from a 300-word vocabulary, and freshly generated entity names (PER: capitalised with
-son/-ova/-ez/-ia endings, LOC: capitalised with -burg/-ville/-stan/-ia endings, ORG: 3-4 capital letters) so the char CNN has
to carry the entity type; sentence-initial words are capitalised, 5% of training tags are resampled; trigger words (mr, in, at, joined) precede entities 60% of the time. Metric: validation
micro F1 over entity tokens (higher is better)."""
import math
import random
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "bilstmcnn"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, DROPOUT = 0.003, 32, 10, 1500, 300, 0.3
MET = "f1"
HIGHER = True

def log_start(info):
    print(f"Ụdị {info['name']}: paramita {info['n_params']}, ahịrịokwu ọzụzụ {info['n_train']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    if (i + 1) % 24 == 0:
        print(f"  nzọụkwụ {gstep}: mfu {loss:.4f}")


def log_epoch(ep, E, m):
    print(f"Oge {ep}/{E}: mfu ọzụzụ {m['tl']:.4f}, F1 ọzụzụ {m['tm']:.4f} | mfu nnwale {m['vl']:.4f}, F1 nnwale {m['vm']:.4f}")


def log_end(m):
    print(f"Emechara n'ime sekọnd {m['el']:.1f}")


SEQ, MAXC = 10, 10
TAGS = ["O", "PER", "LOC", "ORG"]
rng = random.Random(13)
letters = "abcdefghijklmnopqrstuvwxyz"
fillers = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 7))) for _ in range(300)]
triggers = {1: "mr", 2: "in", 3: "joined"}


def ent(tag):
    stem = "".join(rng.choice(letters) for _ in range(rng.randint(2, 5)))
    if tag == 1:
        return (stem + rng.choice(["son", "ova", "ez", "ia"])).capitalize()
    if tag == 2:
        return (stem + rng.choice(["burg", "ville", "stan", "ia"])).capitalize()
    return "".join(rng.choice(letters.upper()) for _ in range(rng.randint(3, 4)))


def sentence():
    words, tags = [], []
    while len(words) < SEQ:
        if rng.random() < 0.22:
            t = rng.randint(1, 3)
            if rng.random() < 0.6 and len(words) < SEQ - 1:
                words.append(triggers[t] if t != 2 or rng.random() < 0.5 else "at")
                tags.append(0)
            words.append(ent(t))
            tags.append(t)
        else:
            words.append(rng.choice(fillers))
            tags.append(0)
    words, tags = words[:SEQ], tags[:SEQ]
    words[0] = words[0][0].upper() + words[0][1:]
    return words, tags


def noisy(data, p):
    out = []
    for ws, ts in data:
        out.append((ws, [rng.randint(0, 3) if rng.random() < p else t for t in ts]))
    return out


train_data = noisy([sentence() for _ in range(N_TRAIN)], 0.05)
val_data = [sentence() for _ in range(N_VAL)]
counts = {}
for ws, _ in train_data:
    for w in ws:
        counts[w] = counts.get(w, 0) + 1
vocab = {w: i + 2 for i, w in enumerate(sorted(w for w, c in counts.items() if c >= 2))}
chars = {c: i + 1 for i, c in enumerate(letters + letters.upper())}


def encode(data):
    wid = torch.tensor([[vocab.get(w, 1) for w in ws] for ws, _ in data])
    cid = torch.zeros(len(data), SEQ, MAXC, dtype=torch.long)
    for n, (ws, _) in enumerate(data):
        for j, w in enumerate(ws):
            for k, ch in enumerate(w[:MAXC]):
                cid[n, j, k] = chars[ch]
    tags = torch.tensor([ts for _, ts in data])
    return wid, cid, tags


w_train, c_train, t_train = encode(train_data)
w_val, c_val, t_val = encode(val_data)


class BiLSTMCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.cemb = nn.Embedding(len(chars) + 1, 16, padding_idx=0)
        self.conv = nn.Conv1d(16, 32, 3, padding=1)
        self.wemb = nn.Embedding(len(vocab) + 2, 32)
        self.lstm = nn.LSTM(64, 32, batch_first=True, bidirectional=True)
        self.drop = nn.Dropout(DROPOUT)
        self.out = nn.Linear(64, len(TAGS))

    def forward(self, w, c):
        b = w.shape[0]
        ce = self.cemb(c.reshape(b * SEQ, MAXC)).transpose(1, 2)
        cf = F.relu(self.conv(ce)).max(2).values.reshape(b, SEQ, 32)
        h = torch.cat([self.wemb(w), cf], 2)
        h, _ = self.lstm(self.drop(h))
        return F.softmax(self.out(self.drop(h)), -1)


def f1(pred, gold):
    tp = ((pred == gold) & (gold > 0)).sum().item()
    fp = ((pred != gold) & (pred > 0)).sum().item()
    fn = ((pred != gold) & (gold > 0)).sum().item()
    return 2 * tp / max(2 * tp + fp + fn, 1)


model = BiLSTMCNN()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
steps = math.ceil(N_TRAIN / BATCH)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "batch": BATCH, "lr": LR, "n_train": N_TRAIN, "n_val": N_VAL})
t0 = time.time()
gstep = 0
for ep in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, preds, golds = 0.0, [], []
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        logits = model(w_train[idx], c_train[idx])
        loss = F.cross_entropy(logits.reshape(-1, len(TAGS)), t_train[idx].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        preds.append(logits.argmax(2))
        golds.append(t_train[idx])
        log_step(ep, i, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    lr_now = optimizer.param_groups[0]["lr"]
    model.eval()
    with torch.no_grad():
        logits = model(w_val, c_val)
        vl = F.cross_entropy(logits.reshape(-1, len(TAGS)), t_val.reshape(-1)).item()
        va = f1(logits.argmax(2), t_val)
    log_epoch(ep, EPOCHS, {"tl": tot / N_TRAIN, "tm": f1(torch.cat(preds), torch.cat(golds)), "vl": vl, "vm": va,
                           "lr": lr_now, "el": time.time() - t0, "sec": time.time() - te, "gstep": gstep})
log_end({"el": time.time() - t0, "gstep": gstep, "ep": EPOCHS, "vm": va, "vl": vl, "n_train": N_TRAIN})
