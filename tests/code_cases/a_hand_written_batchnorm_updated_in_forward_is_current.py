import torch
import torch.nn as nn
import torch.nn.functional as F


class Norm(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.register_buffer("moving_mean", torch.zeros(c))
        self.register_buffer("moving_var", torch.ones(c))

    def forward(self, x):
        if not self.training:
            return (x - self.moving_mean) / torch.sqrt(self.moving_var + 1e-5)
        m, v = x.mean(0), x.var(0, unbiased=False)
        with torch.no_grad():
            self.moving_mean.lerp_(m, 0.1)
            self.moving_var.lerp_(v, 0.1)
        return (x - m) / torch.sqrt(v + 1e-5)


model = nn.Sequential(nn.Linear(4, 8), Norm(8), nn.ReLU(), nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(64, 4), torch.randint(0, 2, (64,))
for epoch in range(3):
    model.train()
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    model.eval()
    with torch.no_grad():
        val = F.cross_entropy(model(x), y)
# expect-not: eval_stats_never_updated
