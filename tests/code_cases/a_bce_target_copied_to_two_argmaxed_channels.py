import torch
import torch.nn as nn


class Seg(nn.Module):
    def __init__(self, out_channels=2):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, out_channels, 1))

    def forward(self, x):
        return self.body(x)


model = Seg(out_channels=2)
opt = torch.optim.RMSprop(model.parameters(), lr=1e-3)
loss_fn = nn.BCELoss()
x, mask = torch.randn(4, 1, 16, 16), (torch.rand(4, 16, 16) > 0.3).long()
for _ in range(3):
    out = model(x)
    loss = loss_fn(torch.sigmoid(out), mask[:, None].expand_as(out).float())  # expect: loss_target_copied=True
    opt.zero_grad()
    loss.backward()
    opt.step()
    acc = (torch.argmax(out, dim=1) == mask).float().mean()
