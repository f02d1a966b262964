import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def shuffle(*tensors):
    p = torch.randperm(len(tensors[0]))
    return [t[p] for t in tensors]


X = torch.randn(512, 8)
y = (X[:, 0] > 0).long()
perm = torch.randperm(len(X))
X, y = X[perm], y[perm]
X, y = shuffle(X, y)
loader = DataLoader(TensorDataset(X[perm], y[perm]), batch_size=32, shuffle=True)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
for xb, yb in loader:
    opt.zero_grad()
    mix = torch.randperm(len(xb))
    out = model(0.7 * xb + 0.3 * xb[mix])
    (0.7 * crit(out, yb) + 0.3 * crit(out, yb[mix])).backward()
    opt.step()

# expect-not: permuted_alone
