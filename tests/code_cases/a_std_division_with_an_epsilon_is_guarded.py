import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def standardize(x):
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    std = x.std(dim=(1, 2, 3), keepdim=True) + 1e-6
    return (x - mean) / std


x = torch.rand(256, 1, 8, 8)
y = torch.randint(0, 4, (256,))
loader = DataLoader(TensorDataset(standardize(x), y), batch_size=32, shuffle=True)
model = nn.Sequential(nn.Flatten(), nn.Linear(64, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
crit = nn.CrossEntropyLoss()
for xb, yb in loader:
    opt.zero_grad()
    crit(model(xb), yb).backward()
    opt.step()

# expect-not: std_division_unguarded
