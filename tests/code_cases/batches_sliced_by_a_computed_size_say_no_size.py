import torch
import torch.nn as nn

x = torch.randn(600, 16)
y = torch.randint(0, 4, (600,))
n_batches = 50
size = len(x) // n_batches
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(3):
    for k in range(n_batches):
        rows = torch.arange(len(x))[k * size:(k + 1) * size]
        opt.zero_grad()
        nn.functional.cross_entropy(model(x[rows]), y[rows]).backward()
        opt.step()
# expect-not: batch_size
