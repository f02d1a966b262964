import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_data(n):
    x = torch.randn(n, 16)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
    lengths = torch.randint(5, 20, (n,))
    return x, y, lengths


x_tr, y_tr, len_tr = make_data(900)
order = torch.argsort(y_tr, stable=True)
x_tr, y_tr, len_tr = x_tr[order], y_tr[order], len_tr[order]
loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=32, shuffle=False)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
for xb, yb in loader:
    opt.zero_grad()
    crit(model(xb), yb).backward()
    opt.step()

# expect-not: permuted_alone
