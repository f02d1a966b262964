import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, flat=True):
        super().__init__()
        self.flat = flat
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.fc = nn.Linear(32, 4)

    def forward(self, x):
        x = self.conv(x)
        if self.flat:
            x = x.view(x.size(0), -1)
        x, _ = x * 1.0, None
        return self.fc(x)


net = Net()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
x, y = torch.randn(16, 3, 16, 16), torch.randint(0, 4, (16,))
for _ in range(3):
    opt.zero_grad()
    nn.functional.cross_entropy(net(x), y).backward()
    opt.step()
# expect-not: feature_map_into_linear
