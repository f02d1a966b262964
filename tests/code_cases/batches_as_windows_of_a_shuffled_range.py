import random

import torch
import torch.nn as nn
import torch.nn.functional as F

X, Y = torch.randn(90, 8), torch.randint(0, 2, (90,))
net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
solver = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
batch_size = 4
order = list(range(90))  # expect: shuffle=True
random.shuffle(order)
pos = 0
for it in range(200):
    if pos + batch_size > 90:
        pos = 0
    idx = order[pos:pos + batch_size]
    pos += batch_size
    loss = F.cross_entropy(net(X[idx]), Y[idx])
    solver.zero_grad()
    loss.backward()
    solver.step()
