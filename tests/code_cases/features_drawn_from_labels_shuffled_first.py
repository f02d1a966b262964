import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_data(n=600, n_cls=4, n_feat=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    labels = torch.arange(n) % n_cls
    labels = labels[torch.randperm(n, generator=g)]
    centres = torch.randn(n_cls, n_feat, generator=g)
    features = centres[labels] + 0.5 * torch.randn(n, n_feat, generator=g)
    return features, labels


features, labels = make_data()
loader = DataLoader(TensorDataset(features, labels), batch_size=32, shuffle=True)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
for xb, yb in loader:
    opt.zero_grad()
    crit(model(xb), yb).backward()
    opt.step()

# expect-not: permuted_alone
