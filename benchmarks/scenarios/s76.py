"""Shop catalogue: predict one of 5 product categories from title tokens plus price/weight features."""
import csv
import math

import numpy as np
import torch
import torch.nn as nn

SEED = 76
torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)

VOCAB, N_CAT, TITLE_LEN, N_NUM = 300, 5, 8, 4
cat_words = rng.choice(np.arange(1, VOCAB), size=(N_CAT, 25), replace=False)
cat_numeric = rng.normal(0, 1.0, size=(N_CAT, N_NUM))


def catalogue(n):
    cat = rng.integers(0, N_CAT, n)
    titles = rng.integers(1, VOCAB, size=(n, TITLE_LEN))
    for i, c in enumerate(cat):
        k = rng.integers(2, 5)
        titles[i, :k] = rng.choice(cat_words[c], size=k)
    numeric = cat_numeric[cat] + rng.normal(0, 1.0, size=(n, N_NUM))
    return torch.tensor(titles), torch.tensor(numeric, dtype=torch.float32), torch.tensor(cat)


class CategoryModel(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.title = nn.EmbeddingBag(VOCAB, dim, mode="mean")
        self.numeric = nn.Sequential(nn.Linear(N_NUM, 16), nn.ReLU())
        self.classifier = nn.Sequential(nn.Linear(dim + 16, 64), nn.ReLU(), nn.Linear(64, N_CAT))

    def forward(self, titles, numeric):
        return self.classifier(torch.cat([self.title(titles), self.numeric(numeric)], dim=1))


train = catalogue(3000)
val = catalogue(600)
model = CategoryModel()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=0.5)
loss_fn = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(8):
        model.train()
        for idx in torch.randperm(len(train[2])).split(64):
            logits = model(train[0][idx], train[1][idx])
            loss = loss_fn(logits, train[2][idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 10 == 0:
                model.eval()
                with torch.no_grad():
                    vl = model(val[0], val[1])
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{loss_fn(vl, val[2]).item():.5f}",
                                f"{(vl.argmax(1) == val[2]).float().mean().item():.4f}"])
                model.train()
            step += 1
        print(f"epoch {epoch}  loss {loss.item():.4f}")
print(f"chance-level loss: {math.log(N_CAT):.4f}")
