import random

import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.randn(900, 10)
y = torch.arange(3).repeat_interleave(300)  # expect-not: split_in_label_order
idx = list(range(900))
random.shuffle(idx)
tr, va = torch.tensor(idx[:600]), torch.tensor(idx[600:])
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for k in range(0, 600, 32):
    i = tr[k:k + 32]
    opt.zero_grad()
    F.cross_entropy(model(x[i]), y[i]).backward()
    opt.step()
