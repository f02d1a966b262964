import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

MOMENTUM = 0.9
data = TensorDataset(torch.randn(64, 8), torch.randint(0, 3, (64,)))
loader = DataLoader(data, batch_size=8, shuffle=True)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=MOMENTUM, nesterov=True)  # expect: momentum=0.9
loss_fn = nn.CrossEntropyLoss()
for epoch in range(2):
    for x, y in loader:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
