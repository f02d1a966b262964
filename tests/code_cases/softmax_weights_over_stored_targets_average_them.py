import torch
import torch.nn as nn
import torch.nn.functional as F


class SoftNeighbourRegressor(nn.Module):
    """Predicts a query's target as an attention-weighted average of a memory bank's targets."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(5, 32), nn.Tanh(), nn.Linear(32, 16))
        self.temperature = nn.Parameter(torch.ones(()))

    def forward(self, q, keys, values):
        scores = self.embed(q) @ self.embed(keys).T / self.temperature
        attn = F.softmax(scores, dim=-1)
        return attn @ values


bank_x, bank_y = torch.randn(200, 5), torch.randn(200)
model = SoftNeighbourRegressor()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(64, 5), torch.randn(64)
for _ in range(3):
    opt.zero_grad()
    F.smooth_l1_loss(model(x, bank_x, bank_y), y).backward()  # expect: output_activation='none'
    opt.step()
