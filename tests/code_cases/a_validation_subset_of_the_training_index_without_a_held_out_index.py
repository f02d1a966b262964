import torch
import torch.nn as nn
from torch.utils.data import Subset, TensorDataset

ds = TensorDataset(torch.randn(200, 4), torch.randn(200, 1))
train_idx = torch.randperm(200)[:150]
val_set = Subset(ds, train_idx)  # expect-not: held_out_from_train_index
m = nn.Linear(4, 1)
o = torch.optim.SGD(m.parameters(), lr=0.01)
for x, y in ds:
    o.zero_grad()
    nn.functional.mse_loss(m(x), y).backward()
    o.step()
