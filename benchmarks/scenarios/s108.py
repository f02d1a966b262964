"""Language identification for short chat messages (4 languages) with hashed character n-grams."""
import csv
import random
import time
import zlib

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

random.seed(108)
torch.manual_seed(108)

N_BUCKETS = 1024
NGRAM_SIZES = (1, 2, 3)

# toy syllable inventories standing in for the four languages
SYLLABLES = {
    "lang_a": ["ka", "ri", "to", "ma", "na", "shi", "ku", "mo", "te", "yo"],
    "lang_b": ["der", "ein", "sch", "ung", "ber", "ich", "ten", "zu", "auf", "gen"],
    "lang_c": ["el", "la", "que", "os", "ci", "ar", "do", "es", "ra", "ue"],
    "lang_d": ["th", "ing", "er", "ou", "an", "wh", "st", "ly", "ea", "ck"],
}
LANGS = sorted(SYLLABLES)


def fake_message(lang):
    inv = SYLLABLES[lang]
    other = SYLLABLES[random.choice(LANGS)]
    words = []
    for _ in range(random.randint(3, 9)):
        n = random.randint(1, 3)
        # loanwords / names from another language show up now and then
        src = other if random.random() < 0.25 else inv
        words.append("".join(random.choice(src) for _ in range(n)))
    text = " ".join(words)
    if random.random() < 0.3:
        text = text.capitalize() + random.choice(["!", "?", " :)", "..."])
    return text


class MessageDataset(Dataset):
    def __init__(self, n):
        self.items = []
        for _ in range(n):
            lang = random.randrange(len(LANGS))
            self.items.append((fake_message(LANGS[lang]), lang))

    def __len__(self):
        return len(self.items)

    def featurize(self, text):
        text = " " + text.lower().strip() + " "
        counts = [0.0] * N_BUCKETS
        for n in NGRAM_SIZES:
            for i in range(len(text) - n + 1):
                gram = text[i:i + n]
                bucket = zlib.crc32(f"{n}:{gram}".encode("utf-8")) % N_BUCKETS
                counts[bucket] += 1.0
        norm = sum(c * c for c in counts) ** 0.5 or 1.0
        return torch.tensor([c / norm for c in counts])

    def __getitem__(self, idx):
        text, label = self.items[idx]
        return self.featurize(text), label


train_ds = MessageDataset(4800)
val_ds = MessageDataset(600)
train_loader = DataLoader(train_ds, batch_size=32, shuffle=True, num_workers=0)
val_loader = DataLoader(val_ds, batch_size=256, num_workers=0)

model = nn.Sequential(nn.Linear(N_BUCKETS, 32), nn.ReLU(), nn.Linear(32, len(LANGS)))
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "step", "train_loss", "val_loss", "val_acc", "data_time_s", "compute_time_s",
                "samples_per_s"])
    step = 0
    for epoch in range(2):
        model.train()
        data_t, comp_t, total, seen = 0.0, 0.0, 0.0, 0
        t_epoch = time.perf_counter()
        t0 = time.perf_counter()
        for xb, yb in train_loader:
            t1 = time.perf_counter()
            data_t += t1 - t0
            loss = criterion(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            total += loss.item() * len(yb)
            seen += len(yb)
            t0 = time.perf_counter()
            comp_t += t0 - t1
            if step % 50 == 0:
                print(f"  step {step}: loss {loss.item():.4f}  data {data_t:.2f}s  compute {comp_t:.2f}s")
        epoch_time = time.perf_counter() - t_epoch

        model.eval()
        correct, vloss, vn = 0, 0.0, 0
        with torch.no_grad():
            for xb, yb in val_loader:
                out = model(xb)
                vloss += criterion(out, yb).item() * len(yb)
                correct += (out.argmax(1) == yb).sum().item()
                vn += len(yb)
        w.writerow([epoch, step, f"{total / seen:.4f}", f"{vloss / vn:.4f}", f"{correct / vn:.4f}",
                    f"{data_t:.3f}", f"{comp_t:.3f}", f"{seen / epoch_time:.1f}"])
        print(f"epoch {epoch}: train_loss {total / seen:.4f}  val_loss {vloss / vn:.4f}  val_acc {correct / vn:.3f}  "
              f"data {data_t:.2f}s compute {comp_t:.2f}s  ({seen / epoch_time:.0f} samples/s)")
