import numpy as np
import torch
import torch.nn as nn

rng = np.random.RandomState(0)
x = rng.randn(300, 800)
x = x / (np.abs(x).max(1, keepdims=True) + 1e-8)
feats = torch.tensor(x, dtype=torch.float32)
y = torch.tensor(rng.randint(0, 3, 300))
model = nn.Linear(800, 3)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(20):
    loss = nn.functional.cross_entropy(model(feats), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
# expect-not: std_division_unguarded
