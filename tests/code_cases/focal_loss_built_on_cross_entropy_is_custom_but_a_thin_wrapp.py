import torch
import torch.nn as nn
import torch.nn.functional as F


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0):
        super().__init__()
        self.gamma = gamma

    def forward(self, logits, target):
        ce = F.cross_entropy(logits, target, reduction="none")
        pt = torch.exp(-ce)
        return ((1 - pt) ** self.gamma * ce).mean()


model = nn.Linear(5, 3)
criterion = FocalLoss()
opt = torch.optim.Adam(model.parameters())
x, y = torch.randn(8, 5), torch.randint(0, 3, (8,))
for _ in range(2):
    opt.zero_grad()
    criterion(model(x), y).backward()  # expect: custom_loss=True; loss_function='custom'
    opt.step()

# (from test_focal_loss_built_on_cross_entropy_is_custom_but_a_thin_wrapper_is_not in the former tests/test_code_reader.py)
