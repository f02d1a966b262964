import torch
import torch.nn as nn


class GatedReadout(nn.Module):
    """Reads each sequence out as sigmoid-gated sums of its raw input channels."""

    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(3, 4)

    def forward(self, seq):
        g = torch.sigmoid(self.gate(seq)).transpose(1, 2)
        return torch.bmm(g, seq).sum(dim=(1, 2))


model = GatedReadout()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.MSELoss()  # expect: loss_function='mse'; output_activation='none'
seq, target = torch.randn(16, 10, 3), torch.randn(16)
for _ in range(2):
    opt.zero_grad()
    loss = crit(model(seq), target)
    loss.backward()
    opt.step()
