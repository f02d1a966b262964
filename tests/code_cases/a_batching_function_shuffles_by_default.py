import numpy as np
import torch
import torch.nn as nn

x = torch.randn(600, 8)
y = torch.randint(0, 3, (600,))


def batches(a, b, size, shuffle=True):
    idx = torch.randperm(len(a)) if shuffle else torch.arange(len(a))
    for s in range(0, len(a), size):
        yield a[idx[s:s + size]], b[idx[s:s + size]]


def evaluate(scores, labels, k=5):
    top = np.argsort(scores)[::-1][:k]
    ranked = labels[np.argsort(scores)]
    return labels[top].mean(), ranked


model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
for epoch in range(3):
    for xb, yb in batches(x, y, 32):  # expect: shuffle=True
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()

# expect-not: data_sorted
# expect-not: item_fetch_blocking
