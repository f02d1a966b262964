import torch
import torch.nn as nn

g = torch.Generator().manual_seed(0)
scales = torch.tensor([30000., 12., 5000., 3., 0.2, 1., 40., 900.])
means = torch.tensor([52000., 41., 8000., 4., 0.35, 0., 120., 2500.])
x = means + scales * torch.randn(4000, 8, generator=g)
y = (torch.randn(4000, generator=g) > 0).float()


class TabularNet(nn.Module):
    def __init__(self, d_in):
        super().__init__()
        self.in_bn = nn.BatchNorm1d(d_in)
        self.body = nn.Sequential(nn.Linear(d_in, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x):
        x = self.in_bn(x)  # expect: inputs_normalized=True
        return self.body(x).squeeze(-1)


model = TabularNet(8)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for epoch in range(5):
    for i in range(0, 4000, 256):
        idx = torch.arange(i, min(i + 256, 4000))
        opt.zero_grad()
        loss = nn.functional.binary_cross_entropy_with_logits(model(x[idx]), y[idx])
        loss.backward()
        opt.step()
# expect-not: input_scale
