import torch
import torch.nn as nn


class Flow(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.layers = nn.ModuleList([nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2)) for _ in range(n)])

    def forward(self, x):
        for layer in self.layers:
            x = x + layer(x)
        return x


model = Flow()
for layer in model.layers[1::2]:
    layer.requires_grad_(False)  # expect: frozen_params=['layer']; frozen_weights='random_init'
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(64, 2)
for step in range(5):
    optimizer.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    optimizer.step()

# expect-detail: frozen_weights: keep their random init
# (a freeze by requires_grad_(False) over a slice of layers the interpreter cannot tie to a module is
# still a freeze; nothing loads weights, so the frozen layers stay random for the whole run)
