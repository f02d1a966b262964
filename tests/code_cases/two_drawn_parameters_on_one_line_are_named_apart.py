import torch
import torch.nn as nn


class Gate(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.wz = nn.Parameter(torch.randn(n, n)); self.bz = nn.Parameter(torch.zeros(n))  # expect: init_weight_std=1.0

    def forward(self, x):
        return torch.sigmoid(x @ self.wz + self.bz) * x


g = Gate(24)
opt = torch.optim.SGD(g.parameters(), lr=0.1)
x = torch.randn(50, 24)
for _ in range(10):
    opt.zero_grad()
    g(x).pow(2).mean().backward()
    opt.step()

# expect-detail: init_weight_std: draws self.wz (24 x 24)
