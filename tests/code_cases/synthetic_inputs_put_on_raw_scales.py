"""Synthetic sensor readings: unit-scale draws put on raw units by an offset and a gain, with a
second feature block on logarithmically spread unit scales, handed to a TensorDataset unnormalised."""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

OFFSET = 500.0
GAIN = 120.0


def make(n, seed):
    rng = np.random.default_rng(seed)
    wave = np.sin(rng.uniform(0.0, 6.0, size=(n, 8)))
    raw = OFFSET + GAIN * (wave + 0.5 * rng.standard_normal((n, 8)))
    gains = np.logspace(0, 2, 4)
    block = rng.standard_normal((n, 4)) * gains
    x = np.concatenate([raw, block], 1)
    y = (wave.sum(1) > 0).astype(np.int64)
    return torch.from_numpy(x).float(), torch.from_numpy(y)


x_tr, y_tr = make(512, 0)
loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=32, shuffle=True)  # expect: input_scale=680.0
model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
for epoch in range(3):
    for xb, yb in loader:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
