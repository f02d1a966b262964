import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

n_classes, per_class = 6, 30
centres = np.random.randn(n_classes, 16)
feats, labels = [], []
for k in range(n_classes):
    for _ in range(per_class):
        feats.append(centres[k] + 0.5 * np.random.randn(16))
        labels.append(k)  # expect: data_sorted=True
data = TensorDataset(torch.tensor(np.array(feats), dtype=torch.float32), torch.tensor(labels))
loader = DataLoader(data, batch_size=20, shuffle=False)
net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, n_classes))
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
for epoch in range(5):
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(xb), yb)
        loss.backward()
        opt.step()
