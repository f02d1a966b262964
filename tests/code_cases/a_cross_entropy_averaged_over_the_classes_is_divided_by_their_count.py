import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 5), nn.LogSoftmax(dim=1))
opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)


def criterion(log_probs, targets):
    return -torch.mean(log_probs * targets)  # expect: loss_averages_classes=True


for step in range(20):
    x, y = torch.randn(32, 16), torch.randint(0, 5, (32,))
    loss = criterion(model(x), F.one_hot(y, 5).float())
    opt.zero_grad()
    loss.backward()
    opt.step()
