import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(6, 24), nn.ReLU())
        self.score = nn.Sequential(nn.Linear(24, 24), nn.ReLU(), nn.Linear(24, 2))
        self.offset = nn.Sequential(nn.Linear(24, 24), nn.ReLU(), nn.Linear(24, 2))
        with torch.no_grad():
            self.score[-1].bias.fill_(-math.log((1 - 0.02) / 0.02))

    def forward(self, x):
        h = self.trunk(x)
        return self.score(h), self.offset(h)


model = TwoHeads()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x, t, r = torch.randn(128, 6), (torch.rand(128, 2) < 0.03).float(), torch.randn(128, 2)
for _ in range(3):
    s, o = model(x)
    loss = F.binary_cross_entropy_with_logits(s, t) + F.smooth_l1_loss(o, r)
    opt.zero_grad()
    loss.backward()
    opt.step()

# expect-not: init_bias_constant
# expect-note: a prior on the output logits
