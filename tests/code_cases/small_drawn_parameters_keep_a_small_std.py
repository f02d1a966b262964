import math

import torch
import torch.nn as nn


class Readout(nn.Module):
    def __init__(self, n_slots, width):
        super().__init__()
        self.slots = nn.Parameter(torch.randn(n_slots, width) * 0.05)  # expect: init_weight_std=0.05
        self.scale = nn.Parameter(torch.randn(width))
        self.proj = nn.Parameter(torch.randn(width, 2) * math.sqrt(1.0 / width))

    def forward(self, q):
        att = torch.softmax(q @ self.slots.T, dim=-1)
        return (att @ self.slots) * self.scale @ self.proj


net = Readout(20, 16)
opt = torch.optim.Adam(net.parameters(), lr=3e-3)
q, t = torch.randn(64, 16), torch.randn(64, 2)
for _ in range(25):
    opt.zero_grad()
    loss = ((net(q) - t) ** 2).mean()
    loss.backward()
    opt.step()
