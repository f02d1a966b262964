import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

X = torch.randn(512, 8)
y = (X[:, 0] > 0).long()
X, y = X[torch.randperm(len(X))], y[torch.randperm(len(y))]  # expect: permuted_alone=True
loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
for xb, yb in loader:
    opt.zero_grad()
    crit(model(xb), yb).backward()
    opt.step()
