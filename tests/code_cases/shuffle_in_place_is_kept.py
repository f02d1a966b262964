import random

import numpy as np
import torch

x = torch.randn(200, 4)
y = torch.arange(4).repeat_interleave(50)
idx = list(range(len(x)))
random.shuffle(idx)
np.random.shuffle(x.numpy())          # shares the tensor's memory: a real (if odd) in-place shuffle
x, y = x[idx], y[idx]
model = torch.nn.Linear(4, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(0, 200, 20):
    loss = torch.nn.functional.cross_entropy(model(x[i:i + 20]), y[i:i + 20])
    opt.zero_grad()
    loss.backward()
    opt.step()

# expect-not: shuffle_discarded
