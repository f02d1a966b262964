import numpy as np
import torch
import torch.nn as nn

rng = np.random.RandomState(0)
x = rng.randn(2000, 4) * 5 + 100
x[rng.rand(2000) < 0.01, 2] = np.nan  # expect: nan_written_to_data=True
mu, sd = np.nanmean(x, 0), np.nanstd(x, 0)
feats = torch.tensor((x - mu) / sd, dtype=torch.float32)
target = torch.randn(2000, 1)
model = nn.Linear(4, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(50):
    loss = nn.functional.mse_loss(model(feats), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
