"""NT-Xent over two augmented views: the targets are each row's partner in the other view, joined
from two aranges. The output layer's width is an embedding size, not a class count."""
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 16))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
data = torch.randn(1000, 20)


def nt_xent(z, n, tau=0.5):
    z = F.normalize(z, dim=1)
    sim = z @ z.T / tau
    sim = sim.masked_fill(torch.eye(2 * n, dtype=torch.bool), float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


for step in range(200):
    xb = data[torch.randint(0, 1000, (64,))]
    views = torch.cat([xb + 0.1 * torch.randn_like(xb), xb * 0.9])
    loss = nt_xent(model(views), 64)
    opt.zero_grad()
    loss.backward()
    opt.step()
# expect-not: num_classes
