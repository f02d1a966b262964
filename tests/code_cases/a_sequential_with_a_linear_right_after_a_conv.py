import torch
import torch.nn as nn

net = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d((4, 4)),
    nn.Linear(16 * 16, 2),  # expect: feature_map_into_linear=True
)
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
x, y = torch.randn(32, 3, 20, 20), torch.randint(0, 2, (32,))
for _ in range(3):
    opt.zero_grad()
    nn.functional.cross_entropy(net(x), y).backward()
    opt.step()
