import torch
import torch.nn as nn

x = torch.randn(900, 12)
y = torch.randint(0, 3, (900,))


def make_batches():
    idx = torch.randperm(len(x))  # expect: shuffle=True
    for s in range(0, len(x), 50):
        rows = idx[s:s + 50]
        yield x[rows], y[rows]


def fit(net, optimizer, batch_source, epochs):
    crit = nn.CrossEntropyLoss()
    for _ in range(epochs):
        batches = list(batch_source())
        for xb, yb in batches:
            optimizer.zero_grad()
            loss = crit(net(xb), yb)
            loss.backward()
            optimizer.step()


model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 3))
fit(model, torch.optim.SGD(model.parameters(), lr=0.05), batch_source=make_batches, epochs=5)
