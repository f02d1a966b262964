import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(64, 3)
y = x.sum(dim=1, keepdim=True)
model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def closure():
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    return loss


for step in range(5):  # expect: zero_grad_called=False
    loss = optimizer.step(closure)
    print("step", step, "loss", loss.item())
