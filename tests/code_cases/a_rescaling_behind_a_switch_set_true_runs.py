import torch
import torch.nn as nn

STANDARDISE = True
DEBUG = False
EPOCHS = 10

pos = 640.0 * torch.rand(2000, 3)
depth = 1500.0 + 300.0 * torch.randn(2000, 1)
x = torch.cat([pos, depth], dim=1)
y = (x[:, 0] > 320.0).long()
mu, sd = x.mean(0), x.std(0)
if STANDARDISE:
    x = (x - mu) / sd
if DEBUG:
    x = x[:100]
    y = y[:100]

model = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(EPOCHS):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
# expect-not: rescaling_switched_off
# expect-not: inputs_normalized
