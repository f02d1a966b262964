import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(0)
x_train = rng.normal(size=(512, 8)).astype(np.float32)
y_train = (x_train[:, 0] > 0).astype(np.int64)
x_train = x_train[rng.permutation(512)]  # expect: permuted_alone=True
loader = DataLoader(TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train)), batch_size=32, shuffle=True)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
for xb, yb in loader:
    opt.zero_grad()
    crit(model(xb), yb).backward()
    opt.step()
