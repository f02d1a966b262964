import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        for p in self.backbone.parameters():
            p.requires_grad = False  # expect: frozen_weights='random_init'
        self.head = nn.Linear(64, 4)
        nn.init.zeros_(self.head.bias)

    def forward(self, x):
        return self.head(self.backbone(x))


model = Net()
optimizer = torch.optim.SGD(model.head.parameters(), lr=0.1)
x, y = torch.randn(64, 32), torch.randint(0, 4, (64,))
for step in range(5):
    optimizer.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    optimizer.step()
