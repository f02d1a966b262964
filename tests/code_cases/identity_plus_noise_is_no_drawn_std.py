import torch
import torch.nn as nn


class Relations(nn.Module):
    def __init__(self, n_rel, dim):
        super().__init__()
        self.maps = nn.Parameter(torch.eye(dim).repeat(n_rel, 1, 1) + 0.01 * torch.randn(n_rel, dim, dim))
        self.bias = nn.Parameter(torch.zeros(n_rel, dim))

    def forward(self, h, r):
        return torch.einsum("bd,bde->be", h, self.maps[r]) + self.bias[r]


rel = Relations(5, 32)
opt = torch.optim.Adam(rel.parameters(), lr=1e-3)
h, r, t = torch.randn(100, 32), torch.randint(0, 5, (100,)), torch.randn(100, 32)
for step in range(20):
    opt.zero_grad()
    loss = ((rel(h, r) - t) ** 2).mean()
    loss.backward()
    opt.step()

# expect-not: init_weight_std
