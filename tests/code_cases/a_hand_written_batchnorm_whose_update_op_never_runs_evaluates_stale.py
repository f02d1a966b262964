import torch
import torch.nn as nn
import torch.nn.functional as F


class Norm(nn.Module):
    def __init__(self, c, momentum=0.1):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(c))
        self.register_buffer("running_mean", torch.zeros(c))
        self.register_buffer("running_var", torch.ones(c))
        self.momentum = momentum

    def update(self, mean, var):
        self.running_mean.mul_(1 - self.momentum).add_(self.momentum * mean)
        self.running_var.mul_(1 - self.momentum).add_(self.momentum * var)

    def forward(self, x):
        if self.training:  # expect: model_has_dropout_or_bn=True
            mean, var = x.mean(0), x.var(0, unbiased=False)
            self.last = (mean.detach(), var.detach())
        else:
            mean, var = self.running_mean, self.running_var  # expect: eval_stats_never_updated=True
        return self.weight * (x - mean) / torch.sqrt(var + 1e-5)


model = nn.Sequential(nn.Linear(4, 8), Norm(8), nn.ReLU(), nn.Linear(8, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
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
