import math

import torch
import torch.nn as nn


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
        self.cls = nn.Linear(32, 1)
        nn.init.constant_(self.cls.bias, -math.log((1 - 0.01) / 0.01))

    def forward(self, x):
        logits = self.cls(self.body(x))
        return logits.squeeze(1)


model = Detector()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.BCEWithLogitsLoss()
x, y = torch.randn(64, 8), (torch.rand(64) < 0.05).float()
for _ in range(3):
    opt.zero_grad()
    crit(model(x), y).backward()
    opt.step()

# expect-not: init_bias_constant
# expect-note: a prior on the output logits
