import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def load_by_class(per_class, rng):
    xs, ys = [], []
    for c in range(4):  # one class after another, as an export tool writes them
        xs.append(rng.normal(c, 1.0, (per_class, 6)))
        ys.append(np.full(per_class, c))  # expect: data_sorted=True
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys)


x, y = load_by_class(200, np.random.default_rng(0))
ds = TensorDataset(torch.tensor(x), torch.tensor(y))
loader = DataLoader(ds, batch_size=32, shuffle=False)  # expect: shuffle=False
model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for _epoch in range(3):
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
