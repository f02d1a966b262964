import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(32, 64)
        self.proj.weight.data = torch.randn(64, 32) * 0.1
        for p in self.proj.parameters():
            p.requires_grad = False  # expect: frozen_weights='random_init'
        self.head = nn.Linear(64, 4)

    def forward(self, x):
        return self.head(torch.relu(self.proj(x)))


model = Encoder()
optimizer = torch.optim.SGD(model.head.parameters(), lr=0.1)
x, y = torch.randn(64, 32), torch.randint(0, 4, (64,))
for step in range(5):
    optimizer.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    optimizer.step()
