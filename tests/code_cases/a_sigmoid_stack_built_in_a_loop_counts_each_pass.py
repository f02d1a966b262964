import torch
import torch.nn as nn

CFG = dict(hidden=64, depth=9, lr=0.01)


class Body(nn.Module):
    def __init__(self, d_in, hidden, depth, act):
        super().__init__()
        layers, d = [], d_in
        for _ in range(depth):
            layers += [nn.Linear(d, hidden), act()]  # expect: sigmoid_depth=9
            d = hidden
        layers.append(nn.Linear(d, 3))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


model = Body(8, CFG["hidden"], CFG["depth"], nn.Sigmoid)
opt = torch.optim.SGD(model.parameters(), lr=CFG["lr"])
crit = nn.CrossEntropyLoss()
x, y = torch.randn(64, 8), torch.randint(0, 3, (64,))
for _ in range(3):
    opt.zero_grad()
    crit(model(x), y).backward()
    opt.step()
# expect-detail: sigmoid_depth: built 9 times in a loop
