import numpy as np
import torch
import torch.nn as nn

counts = np.bincount(np.array([0, 1, 1, 2]), weights=np.array([1.0, 2.0, 2.0, 1.0]))
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3))
for p in model[0].parameters():
    p.requires_grad = False  # expect: frozen_weights='random_init'
optimizer = torch.optim.SGD(model[2].parameters(), lr=0.1)
x, y = torch.randn(64, 8), torch.randint(0, 3, (64,))
for step in range(5):
    optimizer.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    optimizer.step()
