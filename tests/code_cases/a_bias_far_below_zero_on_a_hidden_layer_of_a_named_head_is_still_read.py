import torch
import torch.nn as nn


class HeadsByName(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.heads = heads
        for head, channels in heads.items():
            fc = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, channels))
            fc[0].bias.data.fill_(-5.0)  # expect: init_bias_constant=-5.0
            self.__setattr__(head, fc)

    def forward(self, x):
        return [self.__getattr__(head)(x) for head in self.heads]


model = HeadsByName({"a": 2, "b": 1})
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(64, 6)
for _ in range(3):
    a, b = model(x)
    loss = a.pow(2).mean() + b.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
