import torch
import torch.nn as nn


class Seg(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 1))

    def forward(self, x):
        return self.body(x)


model = Seg()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.BCEWithLogitsLoss()  # expect: loss_function=bce_with_logits
x, mask = torch.randn(4, 1, 16, 16), (torch.rand(4, 16, 16) > 0.3).float()
for _ in range(3):
    out = model(x)
    loss = loss_fn(out, mask[:, None].expand_as(out))
    opt.zero_grad()
    loss.backward()
    opt.step()
    acc = ((out > 0).float() == mask[:, None]).float().mean()
# expect-not: loss_target_copied
