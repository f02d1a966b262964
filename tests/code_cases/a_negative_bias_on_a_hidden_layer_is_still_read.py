import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(8, 32)
        self.out = nn.Linear(32, 3)
        nn.init.constant_(self.hidden.bias, -5.0)  # expect: init_bias_constant=-5.0

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
x, y = torch.randn(64, 8), torch.randint(0, 3, (64,))
for _ in range(3):
    opt.zero_grad()
    crit(model(x), y).backward()
    opt.step()
