import torch
import torch.nn as nn
import torch.nn.functional as F


class HeadsByName(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.trunk = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU())
        self.heads = heads
        for head, channels in heads.items():
            fc = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, channels, 1))
            if head == "hm":
                fc[-1].bias.data.fill_(-2.19)
            self.__setattr__(head, fc)

    def forward(self, x):
        h = self.trunk(x)
        return [{head: self.__getattr__(head)(h) for head in self.heads}]


model = HeadsByName({"hm": 4, "wh": 2})
opt = torch.optim.Adam(model.parameters(), lr=5e-4)
x, t = torch.randn(8, 3, 16, 16), (torch.rand(8, 4, 16, 16) < 0.02).float()
for _ in range(3):
    out = model(x)[0]
    loss = F.binary_cross_entropy_with_logits(out["hm"], t) + out["wh"].abs().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

# expect-not: init_bias_constant
# expect-note: a prior on the output logits
