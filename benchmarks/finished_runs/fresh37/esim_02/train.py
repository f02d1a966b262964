# ESIM (Chen et al. 2017, "Enhanced LSTM for Natural Language Inference") on a synthetic NLI corpus:
# premises "the <subj> <verb> the <obj> <adv>"; hypotheses paraphrase (entailment), negate or swap in an antonym
# verb (contradiction), or change the object/subject (neutral). 8% of labels flipped, as annotator noise.
# BiLSTM encoder -> soft alignment -> [a; a~; a-a~; a*a~] -> projection -> BiLSTM composition -> avg/max pool -> MLP
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 7
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)

N_TRAIN, N_DEV = 2400, 800
BATCH_SIZE = 32
NUM_EPOCHS = 6
LR = 2e-3
WARMUP_STEPS = 75
EMB_DIM, HIDDEN = 32, 32
DROPOUT = 0.3
LABEL_NOISE = 0.08
LABELS = ["entailment", "neutral", "contradiction"]

subjects = ["man", "woman", "boy", "girl", "dog", "cat", "chef", "pilot", "doctor", "student", "farmer", "singer"]
verbs = ["eats", "holds", "buys", "paints", "throws", "opens", "cleans", "carries", "sells", "finds"]
antonyms = {"buys": "sells", "sells": "buys", "opens": "closes", "finds": "loses", "holds": "drops",
            "throws": "catches", "eats": "cooks", "paints": "erases", "cleans": "dirties", "carries": "drops"}
synonyms = {"eats": "consumes", "holds": "grips", "buys": "purchases", "paints": "colors", "throws": "tosses",
            "opens": "unlocks", "cleans": "washes", "carries": "moves", "sells": "trades", "finds": "discovers"}
objects = ["apple", "box", "door", "ball", "car", "book", "cake", "fence", "bag", "key", "guitar", "window"]
advs = ["quickly", "slowly", "today", "outside", "again", "happily"]
vocab = ["<pad>", "<unk>", "the", "a", "not", "does", "someone", "something"] + subjects + objects + advs
vocab += sorted(set(verbs) | set(antonyms.values()) | set(synonyms.values()))
vocab += [v[:-1] for v in verbs] + [v[:-1] for v in antonyms.values()]
vocab = list(dict.fromkeys(vocab))
stoi = {w: i for i, w in enumerate(vocab)}


def make_pair(rng):
    s, v, o, a = (rng.choice(subjects), rng.choice(verbs), rng.choice(objects), rng.choice(advs))
    prem = ["the", s, v, "the", o, a]
    lab = rng.randint(3)
    k = rng.randint(3)
    if lab == 0:
        hyp = [[ "the", s, synonyms[v], "the", o], ["someone", v, "the", o], ["the", s, v, "something"]][k]
    elif lab == 2:
        hyp = [["the", s, "does", "not", v[:-1], "the", o], ["the", s, antonyms[v], "the", o],
               ["nobody", v, "the", o] if False else ["the", s, "does", "not", v[:-1], "a", o]][k]
    else:
        o2 = rng.choice([x for x in objects if x != o])
        s2 = rng.choice([x for x in subjects if x != s])
        hyp = [["the", s, v, "the", o2], ["the", s2, v, "the", o], ["a", s2, synonyms[v], "the", o]][k]
    if rng.rand() < LABEL_NOISE:
        lab = rng.randint(3)
    return [stoi.get(w, 1) for w in prem], [stoi.get(w, 1) for w in hyp], lab


def pad(seqs):
    L = max(len(s) for s in seqs)
    return torch.tensor([s + [0] * (L - len(s)) for s in seqs])


rng = np.random.RandomState(SEED)
pairs = [make_pair(rng) for _ in range(N_TRAIN + N_DEV)]
train_pairs, dev_pairs = pairs[:N_TRAIN], pairs[N_TRAIN:]


def batches(data, shuffle):
    order = np.random.permutation(len(data)) if shuffle else np.arange(len(data))
    for i in range(0, len(data), BATCH_SIZE):
        chunk = [data[j] for j in order[i:i + BATCH_SIZE]]
        yield pad([c[0] for c in chunk]), pad([c[1] for c in chunk]), torch.tensor([c[2] for c in chunk])


class ESIM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(len(vocab), EMB_DIM, padding_idx=0)
        self.encoder = nn.LSTM(EMB_DIM, HIDDEN, batch_first=True, bidirectional=True)
        self.projection = nn.Sequential(nn.Linear(8 * HIDDEN, HIDDEN), nn.ReLU())
        self.composition = nn.LSTM(HIDDEN, HIDDEN, batch_first=True, bidirectional=True)
        self.classifier = nn.Sequential(nn.Dropout(DROPOUT), nn.Linear(8 * HIDDEN, HIDDEN), nn.Tanh(),
                                        nn.Dropout(DROPOUT), nn.Linear(HIDDEN, 3))

    def forward(self, p, h):
        pm, hm = (p != 0), (h != 0)
        a, _ = self.encoder(self.embed(p))
        b, _ = self.encoder(self.embed(h))
        sim = a @ b.transpose(1, 2)
        a_t = F.softmax(sim.masked_fill(~hm[:, None, :], -1e9), dim=2) @ b
        b_t = F.softmax(sim.transpose(1, 2).masked_fill(~pm[:, None, :], -1e9), dim=2) @ a
        ma = self.projection(torch.cat([a, a_t, a - a_t, a * a_t], -1))
        mb = self.projection(torch.cat([b, b_t, b - b_t, b * b_t], -1))
        va, _ = self.composition(ma)
        vb, _ = self.composition(mb)

        def pool(v, m):
            mf = m.unsqueeze(-1).float()
            avg = (v * mf).sum(1) / mf.sum(1)
            mx = v.masked_fill(~m.unsqueeze(-1), -1e9).max(1).values
            return torch.cat([avg, mx], -1)

        return self.classifier(torch.cat([pool(va, pm), pool(vb, hm)], -1))


model = ESIM()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
total_steps = NUM_EPOCHS * ((N_TRAIN + BATCH_SIZE - 1) // BATCH_SIZE)
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda s: (s + 1) / WARMUP_STEPS if s < WARMUP_STEPS else max(0.0, (total_steps - s) / (total_steps - WARMUP_STEPS)))
criterion = nn.CrossEntropyLoss()
n_train_batches = (N_TRAIN + BATCH_SIZE - 1) // BATCH_SIZE
n_dev_batches = (N_DEV + BATCH_SIZE - 1) // BATCH_SIZE


def run_dev():
    model.eval()
    tot, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for p, h, y in batches(dev_pairs, shuffle=False):
            logits = model(p, h)
            tot += criterion(logits, y).item() * len(y)
            correct += (logits.argmax(1) == y).sum().item()
            n += len(y)
    return tot / n, correct / n


LOG_INTERVAL = 50
print(f"| vocab {len(vocab)} | train pairs {N_TRAIN} | dev pairs {N_DEV} | params {sum(p.numel() for p in model.parameters())}")
for epoch in range(NUM_EPOCHS):
    model.train()
    t0 = time.time()
    tot, correct, n = 0.0, 0, 0
    log_t0, log_loss = time.time(), 0.0
    for i, (p, h, y) in enumerate(batches(train_pairs, shuffle=True), 1):
        optimizer.zero_grad()
        logits = model(p, h)
        loss = criterion(logits, y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 10.0)
        optimizer.step()
        scheduler.step()
        tot += loss.item() * len(y)
        correct += (logits.argmax(1) == y).sum().item()
        n += len(y)
        log_loss += loss.item()
        if i % LOG_INTERVAL == 0:
            ms = (time.time() - log_t0) * 1000 / LOG_INTERVAL
            print(f"| epoch {epoch + 1:3d} | {i:5d}/{n_train_batches:5d} batches | lr {optimizer.param_groups[0]['lr']:.5f} | "
                  f"ms/batch {ms:6.2f} | loss {log_loss / LOG_INTERVAL:5.3f} | acc {100 * correct / n:5.2f}")
            log_t0, log_loss = time.time(), 0.0
    train_loss, train_acc = tot / n, correct / n
    dev_loss, dev_acc = run_dev()
    print("-" * 89)
    print(f"| end of epoch {epoch + 1:3d} | time: {time.time() - t0:5.2f}s | train loss {train_loss:5.3f} | "
          f"valid loss {dev_loss:5.3f} | valid acc {100 * dev_acc:5.2f}")
    print("-" * 89)
