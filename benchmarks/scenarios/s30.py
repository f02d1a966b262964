import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class NGramTopics(Dataset):
    """Bag-of-words documents drawn from 5 topics over a 200-word vocabulary."""

    def __init__(self, n_docs, vocab=200, n_topics=5, seed=0):
        rng = np.random.default_rng(seed)
        topic_words = rng.dirichlet(np.full(vocab, 0.05), size=n_topics)
        self.y = rng.integers(0, n_topics, n_docs)
        self.x = np.zeros((n_docs, vocab), np.float32)
        for i, t in enumerate(self.y):
            mix = 0.6 * topic_words[t] + 0.4 / vocab
            words = rng.choice(vocab, size=40, p=mix / mix.sum())
            np.add.at(self.x[i], words, 1.0)
        self.x = np.log1p(self.x)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), torch.tensor(self.y[i])


class TopicMLP(nn.Module):
    def __init__(self, vocab=200, n_topics=5):
        super().__init__()
        self.fc1 = nn.Linear(vocab, 64)
        self.drop = nn.Dropout(0.2)
        self.fc2 = nn.Linear(64, n_topics)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x))))


torch.manual_seed(30)
train_dl = DataLoader(NGramTopics(2000, seed=0), batch_size=40, shuffle=True)
val_ds = NGramTopics(500, seed=1)
val_dl = DataLoader(val_ds, batch_size=500)

model = TopicMLP()
criterion = nn.NLLLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

with open("metrics.csv", "w", newline="") as f:
    log = csv.writer(f)
    log.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(6):
        model.train()
        for xb, yb in train_dl:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            step += 1
            if step % 10 == 0:
                model.eval()
                with torch.no_grad():
                    xv, yv = next(iter(val_dl))
                    out = model(xv)
                    vl = criterion(out, yv).item()
                    va = (out.argmax(1) == yv).float().mean().item()
                model.train()
                log.writerow([step, epoch, f"{loss.item():.5g}", f"{vl:.5g}", f"{va:.4f}"])
        print(f"epoch {epoch}: loss {loss.item():.4f}  val_loss {vl:.4f}  val_acc {va:.3f}")
