import torch
import torch.nn as nn


class Bilinear(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.m = nn.Parameter(torch.zeros(n, n))
        self.m.data.copy_(torch.eye(n) * 0.5)

    def forward(self, a, b):
        return ((a @ self.m) * b).sum(-1)


scorer = Bilinear(6)
opt = torch.optim.Adam(scorer.parameters(), lr=1e-3)
a, b, y = torch.randn(64, 6), torch.randn(64, 6), torch.rand(64)
for it in range(50):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(scorer(a, b), y)
    loss.backward()  # expect: graph_cut=False
    opt.step()
    with torch.no_grad():
        scorer.m.data.clamp_(-1.0, 1.0)
