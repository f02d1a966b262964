import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

x = torch.randn(500, 8) + torch.arange(5).repeat_interleave(100)[:, None]
y = torch.arange(5).repeat_interleave(100)  # expect: data_sorted=True
loader = DataLoader(TensorDataset(x, y), batch_size=50)  # expect: shuffle=False
model = nn.Linear(8, 5)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for xb, yb in loader:
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(xb), yb)
    loss.backward()
    opt.step()
