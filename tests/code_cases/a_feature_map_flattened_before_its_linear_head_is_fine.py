import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.MaxPool2d(2))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 4)
        self.tail = nn.Sequential(nn.Conv2d(3, 4, 3), nn.AdaptiveAvgPool2d((1, 6)), nn.Linear(6, 6), nn.Flatten(),
                                  nn.Linear(24, 4))

    def forward(self, x):
        a = self.pool(self.conv(x))
        a = torch.flatten(a, 1)
        b = self.pool(self.conv(x)).view(x.size(0), -1)
        return self.fc(a) + self.fc(b) + self.tail(x)


net = Net()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
x, y = torch.randn(16, 3, 16, 16), torch.randint(0, 4, (16,))
for _ in range(3):
    opt.zero_grad()
    nn.functional.cross_entropy(net(x), y).backward()
    opt.step()
# expect-not: feature_map_into_linear
