import numpy as np
import torch
import torch.nn as nn

# one prototype row per class, each appended once: no run of alike rows
protos, names = [], []
for k in range(8):
    protos.append(np.random.randn(16))
    names.append(k)
x = torch.tensor(np.array(protos), dtype=torch.float32)
y = torch.tensor(names)
net = nn.Linear(16, 8)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(50):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(net(x), y)
    loss.backward()
    opt.step()

# expect-not: data_sorted
