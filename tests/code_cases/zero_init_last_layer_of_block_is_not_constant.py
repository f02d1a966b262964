import torch
import torch.nn as nn


class Coupling(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, 4))
        nn.init.zeros_(self.net[-1].weight)  # expect: init_constant=False
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, x):
        s, t = self.net(x).chunk(2, dim=1)
        return x * torch.exp(torch.tanh(s)) + t


model = Coupling()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(64, 2)
for step in range(5):
    optimizer.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    optimizer.step()

# expect-detail: init_constant: sets only the last layer of a block
# (the output layer of a block started at zero, as RealNVP/Glow couplings, zero-initialised residual
# branches and adaLN-zero do: the units it feeds are told apart by the loss, so no symmetry follows)
