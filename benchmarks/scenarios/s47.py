"""Sentiment-style classifier over variable-length token sequences (embedding bag + MLP)."""
import csv
import random

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

random.seed(47)
torch.manual_seed(47)
VOCAB = 500
POSITIVE = set(range(10, 60))
NEGATIVE = set(range(60, 110))


class Reviews(Dataset):
    def __init__(self, n):
        self.items = []
        for _ in range(n):
            length = random.randint(8, 40)
            label = random.randint(0, 1)
            pool = list(POSITIVE if label else NEGATIVE)
            toks = [random.choice(pool) if random.random() < 0.2 else random.randint(110, VOCAB - 1)
                    for _ in range(length)]
            self.items.append((torch.tensor(toks), label))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class BagModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 32, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))

    def forward(self, tokens):
        mask = (tokens != 0).float().unsqueeze(-1)
        pooled = (self.emb(tokens) * mask).sum(1) / mask.sum(1).clamp(min=1)
        return self.mlp(pooled)


loader = DataLoader(Reviews(2000), batch_size=32, shuffle=True)
model = BagModel()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
crit = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "loss", "accuracy"])
    step = 0
    for epoch in range(4):
        for tokens, labels in loader:
            opt.zero_grad()
            out = model(tokens)
            loss = crit(out, labels)
            loss.backward()
            opt.step()
            w.writerow([step, epoch, f"{loss.item():.5f}", f"{(out.argmax(1) == labels).float().mean().item():.4f}"])
            step += 1
        print(f"epoch {epoch}: loss {loss.item():.4f}")
