import torch
import torch.nn as nn

x = torch.randn(600, 16)
y = torch.randint(0, 4, (600,))
mini_batch = 12
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(3):
    order = torch.randperm(len(x))
    for k in range(len(x) // mini_batch):  # expect: batch_size=12
        rows = order[k * mini_batch:(k + 1) * mini_batch]
        opt.zero_grad()
        nn.functional.cross_entropy(model(x[rows]), y[rows]).backward()
        opt.step()
# expect-detail: batch_size: k * mini_batch
