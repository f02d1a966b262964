import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 8, 5), nn.BatchNorm2d(8), nn.LeakyReLU(0.1))
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(8 * 4 * 4, 10))

    def forward(self, img):
        h = F.relu(self.body(img))
        h = F.max_pool2d(h, 6)
        return self.head(h)  # expect: feature_map_into_linear=True


net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.05)
x, y = torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))
for _ in range(5):
    opt.zero_grad()
    F.cross_entropy(net(x), y).backward()
    opt.step()
# expect-detail: feature_map_into_linear: shape error
