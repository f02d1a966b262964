import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

x = torch.cat([torch.randn(300, 5) + 1, torch.randn(300, 5) - 1])
y = torch.cat([torch.zeros(300), torch.ones(300)])  # expect-not: data_sorted
train, val = random_split(TensorDataset(x, y), [500, 100])
loader = DataLoader(train, batch_size=50)
model = nn.Linear(5, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for xb, yb in loader:
    opt.zero_grad()
    loss = nn.functional.binary_cross_entropy_with_logits(model(xb).squeeze(1), yb)
    loss.backward()
    opt.step()
