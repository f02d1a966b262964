import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
x, y = torch.randn(128, 8), torch.randn(128, 1)
for _ in range(3):
    l2 = sum(p.pow(2).sum() for p in model.parameters())
    loss = F.mse_loss(model(x), y) + 1e-4 * l2  # expect: loss_function=mse; custom_loss=False
    opt.zero_grad()
    loss.backward()
    opt.step()
