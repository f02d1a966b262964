import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Remote(Dataset):
    def __init__(self, n):
        self.x, self.y = torch.randn(n, 8), torch.randint(0, 3, (n,))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        time.sleep(0.002)  # expect: item_fetch_blocking=['sleep']
        return self.x[i], self.y[i]


loader = DataLoader(Remote(256), batch_size=32, shuffle=True)  # expect: num_workers=0
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
crit = nn.CrossEntropyLoss()
for epoch in range(2):
    for xb, yb in loader:
        opt.zero_grad()
        crit(model(xb), yb).backward()
        opt.step()

# expect-not: data_sorted
