import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Subset, TensorDataset

full = TensorDataset(torch.randn(300, 5), torch.randint(0, 3, (300,)))
perm = np.random.permutation(300)
train_ids, valid_ids = perm[:240], perm[240:]
train_part = Subset(full, train_ids)
valid_part = Subset(full, valid_ids)  # expect-not: held_out_from_train_index
sub_val = Subset(train_part, np.arange(40))
net = nn.Linear(5, 3)
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for xb, yb in DataLoader(train_part, batch_size=32, shuffle=True):
    opt.zero_grad()
    nn.functional.cross_entropy(net(xb), yb).backward()
    opt.step()
