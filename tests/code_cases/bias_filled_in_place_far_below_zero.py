import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, h=64):
        super().__init__()
        self.l1 = nn.Linear(1, h)
        self.l2 = nn.Linear(h, 1)
        with torch.no_grad():
            self.l1.bias.fill_(-8.0)  # expect: init_bias_constant=-8.0

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


model = Net()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
x = torch.rand(256, 1)
y = x ** 2
for step in range(100):
    loss = F.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
