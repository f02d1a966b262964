import random

import torch

x = torch.randn(200, 4)
y = torch.arange(4).repeat_interleave(50)        # rows listed class by class
order = range(len(x))
random.seed(0)
random.shuffle(list(range(len(order))))  # expect: shuffle_discarded=True
x, y = x[list(order)], y[list(order)]
model = torch.nn.Linear(4, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(0, 200, 20):
    loss = torch.nn.functional.cross_entropy(model(x[i:i + 20]), y[i:i + 20])
    opt.zero_grad()
    loss.backward()
    opt.step()

# expect-detail: shuffle_discarded: random.shuffle(list(range(len(order))))
