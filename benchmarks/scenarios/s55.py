"""Route support tickets to one of 5 teams from their (hashed) word ids with an EmbeddingBag classifier."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(55)
rng = np.random.default_rng(55)

VOCAB, N_TEAMS, MAX_LEN = 2000, 5, 40
# each team has a handful of characteristic words; the rest of a ticket is common filler
TEAM_WORDS = [rng.choice(np.arange(100, VOCAB), size=30, replace=False) for _ in range(N_TEAMS)]


class Tickets(Dataset):
    def __init__(self, n):
        self.items = []
        for _ in range(n):
            team = int(rng.integers(N_TEAMS))
            length = int(rng.integers(12, MAX_LEN))
            n_key = max(1, int(rng.binomial(length, 0.15)))
            words = np.concatenate([rng.choice(TEAM_WORDS[team], n_key), rng.integers(0, VOCAB, length - n_key)])
            self.items.append((torch.tensor(rng.permutation(words), dtype=torch.long), team))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    tokens = torch.cat([t for t, _ in batch])
    offsets = torch.tensor([0] + [len(t) for t, _ in batch[:-1]]).cumsum(0)
    return tokens, offsets, torch.tensor([y for _, y in batch])


class TicketRouter(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(VOCAB, 64, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, N_TEAMS))

    def forward(self, tokens, offsets):
        return self.mlp(self.emb(tokens, offsets))


train_loader = DataLoader(Tickets(3000), batch_size=50, shuffle=True, collate_fn=collate)
val_loader = DataLoader(Tickets(600), batch_size=200, collate_fn=collate)

model = TicketRouter()
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
criterion = nn.CrossEntropyLoss()

f = open("metrics.csv", "w", newline="")
w = csv.writer(f)
w.writerow(["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy"])

model.zero_grad()
for epoch in range(12):
    model.train()
    tot, hit, n = 0.0, 0, 0
    for tokens, offsets, y in train_loader:
        logits = model(tokens, offsets)
        loss = criterion(logits, y)
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(y)
        hit += (logits.argmax(1) == y).sum().item()
        n += len(y)
    model.eval()
    vtot, vhit, vn = 0.0, 0, 0
    with torch.no_grad():
        for tokens, offsets, y in val_loader:
            logits = model(tokens, offsets)
            vtot += criterion(logits, y).item() * len(y)
            vhit += (logits.argmax(1) == y).sum().item()
            vn += len(y)
    w.writerow([epoch, f"{tot / n:.5f}", f"{vtot / vn:.5f}", f"{hit / n:.4f}", f"{vhit / vn:.4f}"])
    f.flush()
    print(f"epoch {epoch:2d}  train {tot / n:.4f} ({hit / n:.3f})  val {vtot / vn:.4f} ({vhit / vn:.3f})")
f.close()
