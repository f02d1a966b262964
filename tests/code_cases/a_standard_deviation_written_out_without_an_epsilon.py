import numpy as np
import torch
import torch.nn as nn


def standardise(block):
    n = block.shape[0]
    mean = block.sum(axis=0) / n
    spread = np.sqrt((block * block).sum(axis=0) / n - mean * mean)
    return (block - mean) / spread  # expect: std_division_unguarded=True


clips = [standardise(np.random.randn(30, 8).astype(np.float32)) for _ in range(20)]
net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for c in clips:
    x = torch.tensor(c)
    loss = nn.functional.cross_entropy(net(x), torch.randint(0, 3, (30,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
