import numpy as np
import torch
import torch.nn as nn

rng = np.random.RandomState(0)
x = np.stack([np.zeros(800) if rng.rand() < 0.02 else rng.randn(800) for _ in range(300)])
x = x / np.abs(x).max(1, keepdims=True)  # expect: std_division_unguarded=True
feats = torch.tensor(x, dtype=torch.float32)
y = torch.tensor(rng.randint(0, 3, 300))
model = nn.Linear(800, 3)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(20):
    loss = nn.functional.cross_entropy(model(feats), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
