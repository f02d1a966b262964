"""Event-log classifier: which of 4 alert types dominates a session of 24 logged events? Embedding + LSTM."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(57)
rng = np.random.default_rng(57)

VOCAB, SEQ_LEN, N_CLASSES = 32, 24, 4     # ids 0-3 are the alert types, 4-31 ordinary events


def make_sessions(n):
    xs, ys = [], []
    while len(xs) < n:
        seq = rng.integers(4, VOCAB, SEQ_LEN)
        counts = rng.multinomial(int(rng.integers(4, 11)), [0.25] * 4)
        if np.sort(counts)[-1] == np.sort(counts)[-2]:
            continue                       # skip sessions with a tie
        alerts = np.repeat(np.arange(4), counts)
        pos = rng.choice(SEQ_LEN, len(alerts), replace=False)
        seq[pos] = alerts
        xs.append(seq)
        ys.append(int(np.argmax(counts)))
    return torch.tensor(np.array(xs), dtype=torch.long), torch.tensor(ys)


x_tr, y_tr = make_sessions(2400)
x_va, y_va = make_sessions(600)
train_loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=32, shuffle=True)


class SessionLSTM(nn.Module):
    def __init__(self, emb=16, hidden=48):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, emb)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True)
        self.head = nn.Linear(hidden, N_CLASSES)

    def forward(self, x):
        _, (h, _) = self.lstm(self.emb(x))
        return self.head(h[-1])


model = SessionLSTM()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy"])
    for epoch in range(12):
        model.train()
        tot, hit = 0.0, 0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            out = model(xb)
            loss = criterion(out, yb)
            loss.backward()
            optimizer.step()
            tot += loss.item() * len(yb)
            hit += (out.argmax(1) == yb).sum().item()
        model.eval()
        with torch.no_grad():
            out = model(x_va)
            vl = criterion(out, y_va).item()
            va = (out.argmax(1) == y_va).float().mean().item()
        tl, ta = tot / len(y_tr), hit / len(y_tr)
        w.writerow([epoch, f"{tl:.5f}", f"{vl:.5f}", f"{ta:.4f}", f"{va:.4f}"])
        print(f"epoch {epoch:2d}  train {tl:.4f} ({ta:.3f})  val {vl:.4f} ({va:.3f})")
