import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_data(n=600):
    x = torch.randn(n, 8)
    y = (x[:, 0] > 0).long()
    y = y[torch.randperm(n)]  # expect: permuted_alone=True
    return x, y


x, y = make_data()
loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
for xb, yb in loader:
    opt.zero_grad()
    crit(model(xb), yb).backward()
    opt.step()
