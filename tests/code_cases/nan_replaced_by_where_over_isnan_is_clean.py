# expect-not: nan_written_to_data
import numpy as np
import torch
import torch.nn as nn

rng = np.random.RandomState(0)
x = rng.randn(2000, 4)
x = np.where(rng.rand(2000, 4) < 0.01, np.nan, x)
x = np.where(np.isnan(x), 0.0, x)
feats = torch.tensor(x, dtype=torch.float32)
target = torch.randn(2000, 1)
model = nn.Linear(4, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(50):
    loss = nn.functional.mse_loss(model(feats), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
