"""The optimizer takes the parameters of the last layer of a ModuleList only: the layers before it keep their
random start while the whole model trains (APPNP's `Adam(model.layers[-1].parameters())`)."""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList()
        self.layers.append(nn.Linear(8, 16))
        self.layers.append(nn.Linear(16, 16))
        self.layers.append(nn.Linear(16, 4))

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = torch.relu(layer(x))
        return self.layers[-1](x)


model = Net()
opt = torch.optim.Adam(model.layers[-1].parameters(), lr=1e-3)  # expect: params_not_in_optimizer
x = torch.randn(32, 8)
y = torch.randint(0, 4, (32,))
for _ in range(10):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
# expect-detail: params_not_in_optimizer: model.layers[0]
