import numpy as np
import torch
import torch.nn as nn

rng = np.random.RandomState(0)
price = rng.lognormal(3.0, 0.6, size=2000)
seen = np.where(rng.rand(2000) < 0.03, np.nan, price)  # expect: nan_written_to_data=True
mu, sd = np.nanmean(np.log(seen)), np.nanstd(np.log(seen))
feats = torch.tensor(((np.log(seen) - mu) / sd)[:, None], dtype=torch.float32)
target = torch.randn(2000, 1)
model = nn.Linear(1, 1)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(50):
    loss = nn.functional.mse_loss(model(feats), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
