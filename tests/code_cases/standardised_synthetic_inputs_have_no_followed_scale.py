"""Raw-unit synthetic features standardised before training (a division by their std), and a
feature column rewritten in place: neither leaves a scale the reader can vouch for."""
import torch
import torch.nn as nn

x = 3000.0 + 800.0 * torch.randn(1024, 6)
x = (x - x.mean(0)) / x.std(0)
z = torch.rand(1024, 3) * 5.0
z[:, 0] = torch.log1p(z[:, 0] * 1000.0)
y = torch.randint(0, 2, (1024,))
model = nn.Linear(9, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(100):
    opt.zero_grad()
    out = model(torch.cat([x, z], 1))
    loss = nn.functional.cross_entropy(out, y)
    loss.backward()
    opt.step()
# expect-not: input_scale
