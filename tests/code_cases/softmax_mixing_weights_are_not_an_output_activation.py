import torch
import torch.nn as nn
import torch.nn.functional as F


class Mixture(nn.Module):
    def __init__(self):
        super().__init__()
        self.members = nn.ModuleList([nn.Linear(4, 3) for _ in range(3)])
        self.mix = nn.Parameter(torch.zeros(3))

    def forward(self, x):
        w = torch.softmax(self.mix, dim=0)
        return (w[:, None, None] * torch.stack([m(x) for m in self.members])).sum(0)


model = Mixture()
opt = torch.optim.Adam(model.parameters())  # expect: params_not_in_optimizer=[]
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
for _ in range(2):
    opt.zero_grad()
    F.cross_entropy(model(x), y).backward()  # expect: output_activation='none'
    opt.step()

# (from test_softmax_mixing_weights_are_not_an_output_activation in the former tests/test_code_reader.py)
