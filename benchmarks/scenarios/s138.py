"""Surname -> language-of-origin classifier with a character-level GRU.

Names are generated from per-language syllable inventories; the network reads the name one
character at a time and classifies from the final hidden state.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(138)
torch.set_num_threads(1)

LANGS = {
    "italian": ["ri", "ni", "lo", "cci", "tti", "ro", "ma", "be", "gio", "lli"],
    "polish": ["ski", "cz", "wi", "rz", "ko", "ew", "szy", "dz", "ak", "ow"],
    "japanese": ["ka", "ta", "mo", "shi", "na", "yama", "su", "ki", "da", "ra"],
    "dutch": ["van", "de", "berg", "ij", "aa", "oo", "man", "hof", "ers", "dijk"],
    "greek": ["opo", "ulos", "is", "ak", "kos", "th", "os", "ou", "papa", "ni"],
}
CHARS = "abcdefghijklmnopqrstuvwxyz"
HIDDEN = 64
EPOCHS = 6
BATCH = 32
LR = 3e-3


def make_names(n, rng):
    names, labels = [], []
    keys = list(LANGS)
    for _ in range(n):
        c = rng.integers(len(keys))
        syl = LANGS[keys[c]]
        k = rng.integers(2, 5)
        names.append("".join(syl[j] for j in rng.integers(0, len(syl), k))[:14])
        labels.append(c)
    return names, np.array(labels)


def encode(names, max_len=14):
    x = torch.zeros(len(names), max_len, dtype=torch.long)
    lens = torch.zeros(len(names), dtype=torch.long)
    for i, n in enumerate(names):
        for j, ch in enumerate(n[:max_len]):
            x[i, j] = CHARS.index(ch) + 1
        lens[i] = len(n[:max_len])
    return x, lens


class CharGRU(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.emb = nn.Embedding(len(CHARS) + 1, 24, padding_idx=0)
        self.gru = nn.GRU(24, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, n_classes)

    def forward(self, x, lens):
        packed = nn.utils.rnn.pack_padded_sequence(self.emb(x), lens, batch_first=True, enforce_sorted=False)
        _, h = self.gru(packed)
        return self.out(h[-1])


rnn = CharGRU(len(LANGS))
optimizer = torch.optim.Adam(rnn.parameters(), lr=LR)


def evaluate(model, x, lens, y):
    model.eval()
    with torch.no_grad():
        out = model(x, lens)
        return F.cross_entropy(out, y).item(), (out.argmax(1) == y).float().mean().item()


def main():
    rng = np.random.default_rng(138)
    tr_names, tr_y = make_names(4000, rng)
    va_names, va_y = make_names(800, rng)
    x_tr, l_tr = encode(tr_names)
    x_va, l_va = encode(va_names)
    y_tr, y_va = torch.from_numpy(tr_y), torch.from_numpy(va_y)

    rnn = CharGRU(len(LANGS))
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc"])
        for epoch in range(EPOCHS):
            perm = torch.randperm(len(x_tr))
            for i in range(0, len(perm), BATCH):
                rnn.train()
                idx = perm[i:i + BATCH]
                loss = F.cross_entropy(rnn(x_tr[idx], l_tr[idx]), y_tr[idx])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                step += 1
                if step % 25 == 0:
                    vl, va = evaluate(rnn, x_va, l_va, y_va)
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"epoch {epoch} step {step}  train {loss.item():.4f}  val {vl:.4f}  acc {va:.3f}")


if __name__ == "__main__":
    main()
