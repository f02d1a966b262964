import torch
import torch.nn as nn
import torch.nn.functional as F


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
        self.cls = nn.Linear(32, 1)

    def forward(self, x):
        return self.cls(self.body(x)).squeeze(1)


def focal_loss(logits, targets, alpha=0.25, gamma=2.0):
    p = torch.sigmoid(logits)
    ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")  # expect: loss_squashes_twice=False
    p_t = p * targets + (1 - p) * (1 - targets)
    return ((1 - p_t) ** gamma * ce).mean()


model = Head()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(64, 8), (torch.rand(64) < 0.1).float()
for _ in range(3):
    opt.zero_grad()
    loss = focal_loss(model(x), y)  # expect: custom_loss=True
    loss.backward()
    opt.step()
