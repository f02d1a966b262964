import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
lam = 1e-4
for step in range(100):
    x, y = torch.randn(32, 20), torch.randint(0, 5, (32,))
    l2 = sum(p.pow(2).sum() for p in model.parameters())
    loss = nn.functional.cross_entropy(model(x), y) + lam * l2  # expect: weight_decay=0.0002
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
