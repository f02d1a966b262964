import torch
import torch.nn as nn
import torch.nn.functional as F


class ConcreteMask(nn.Module):
    def __init__(self):
        super().__init__()
        self.p_logit = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        p = torch.sigmoid(self.p_logit)
        u = torch.rand_like(x)
        drop = torch.log(p + 1e-7) - torch.log(1 - p + 1e-7) + torch.log(u + 1e-7) - torch.log(1 - u + 1e-7)
        drop = torch.sigmoid(drop / 0.1)
        return x * (1 - drop) / (1 - p)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.mask = ConcreteMask()
        self.fc = nn.Linear(20, 1)

    def forward(self, x):
        return torch.sigmoid(self.fc(self.mask(x))).squeeze(1)


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(50, 20), (torch.rand(50) < 0.5).float()
for _ in range(3):
    loss = F.binary_cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()

# expect-not: loss_squashes_twice
