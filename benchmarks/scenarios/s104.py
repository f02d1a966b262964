"""Smart-home voice command intents: a small Transformer encoder over tokenised utterances.
The encoder and the classification head get separate optimizers (head uses a higher LR)."""
import csv
import math
import random

import numpy as np
import torch
import torch.nn as nn

random.seed(104)
np.random.seed(104)
torch.manual_seed(104)

INTENTS = ["lights_on", "lights_off", "set_temp", "play_music", "stop_music", "set_timer"]
KEYWORDS = {
    "lights_on": ["light", "on", "bright"],
    "lights_off": ["light", "off", "dark"],
    "set_temp": ["heat", "degrees", "warm"],
    "play_music": ["play", "song", "music"],
    "stop_music": ["stop", "music", "quiet"],
    "set_timer": ["timer", "minutes", "remind"],
}
FILLER = ["please", "the", "a", "could", "you", "in", "kitchen", "bedroom", "now", "hey", "home", "for",
          "me", "turn", "set", "can", "living", "room", "some", "it", "to", "up", "down", "just"]
VOCAB = ["<pad>", "<cls>"] + sorted(set(FILLER) | {w for ws in KEYWORDS.values() for w in ws})
TOK = {w: i for i, w in enumerate(VOCAB)}
MAX_LEN = 14


def make_utterance(intent):
    words = random.sample(FILLER, random.randint(3, 8))
    kws = KEYWORDS[intent]
    n_kw = 1 if random.random() < 0.4 else 2   # short commands often carry a single keyword
    for w in random.sample(kws, n_kw):
        words.insert(random.randint(0, len(words)), w)
    ids = [TOK["<cls>"]] + [TOK[w] for w in words][: MAX_LEN - 1]
    return ids + [TOK["<pad>"]] * (MAX_LEN - len(ids))


def make_dataset(n, mislabel=0.08):
    labels = [random.randrange(len(INTENTS)) for _ in range(n)]
    x = torch.tensor([make_utterance(INTENTS[l]) for l in labels])
    # crowd-sourced annotations: a few utterances carry the wrong intent
    labels = [random.randrange(len(INTENTS)) if random.random() < mislabel else l for l in labels]
    return x, torch.tensor(labels)


x_train, y_train = make_dataset(3000)
x_val, y_val = make_dataset(600)


class IntentEncoder(nn.Module):
    def __init__(self, d_model=32, nhead=4, layers=2):
        super().__init__()
        self.tok = nn.Embedding(len(VOCAB), d_model, padding_idx=0)
        self.pos = nn.Parameter(torch.randn(1, MAX_LEN, d_model) * 0.02)
        block = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=64, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)

    def forward(self, ids):
        pad = ids == 0
        h = self.encoder(self.tok(ids) + self.pos, src_key_padding_mask=pad)
        return h[:, 0]


encoder = IntentEncoder()
head = nn.Sequential(nn.LayerNorm(32), nn.Linear(32, len(INTENTS)))
criterion = nn.CrossEntropyLoss()

encoder_opt = torch.optim.AdamW(encoder.parameters(), lr=1e-3, weight_decay=0.01)
head_opt = torch.optim.SGD(head.parameters(), lr=0.05, momentum=0.9)

BATCH = 32
EPOCHS = 4
steps_per_epoch = math.ceil(len(x_train) / BATCH)


def evaluate():
    encoder.eval()
    head.eval()
    with torch.no_grad():
        logits = head(encoder(x_val))
        return criterion(logits, y_val).item(), (logits.argmax(1) == y_val).float().mean().item()


with open("metrics.csv", "w", newline="") as fh:
    writer = csv.writer(fh)
    writer.writerow(["epoch", "step", "train_loss", "train_acc", "val_loss", "val_acc"])
    step = 0
    for epoch in range(EPOCHS):
        perm = torch.randperm(len(x_train))
        run_loss, run_hit, run_n = 0.0, 0, 0
        for i in range(steps_per_epoch):
            encoder.train()
            head.train()
            idx = perm[i * BATCH:(i + 1) * BATCH]
            logits = head(encoder(x_train[idx]))
            loss = criterion(logits, y_train[idx])

            encoder_opt.zero_grad()
            loss.backward()
            encoder_opt.step()
            head_opt.step()

            step += 1
            run_loss += loss.item() * len(idx)
            run_hit += (logits.argmax(1) == y_train[idx]).sum().item()
            run_n += len(idx)
            if step % 25 == 0:
                vl, va = evaluate()
                tl, ta = run_loss / run_n, run_hit / run_n
                writer.writerow([epoch, step, f"{tl:.4f}", f"{ta:.4f}", f"{vl:.4f}", f"{va:.4f}"])
                print(f"epoch {epoch} step {step:4d}  train_loss {tl:.4f} acc {ta:.3f}  val_loss {vl:.4f} acc {va:.3f}")
                run_loss, run_hit, run_n = 0.0, 0, 0
