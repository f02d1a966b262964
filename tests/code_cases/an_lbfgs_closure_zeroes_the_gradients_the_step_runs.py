import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(64, 3)
y = x.sum(dim=1, keepdim=True)
model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
criterion = nn.MSELoss()
optimizer = torch.optim.LBFGS(model.parameters(), lr=0.8)

for step in range(5):
    def closure():
        optimizer.zero_grad()  # expect: zero_grad_called=True
        loss = criterion(model(x), y)
        loss.backward()
        return loss
    loss = optimizer.step(closure)
    print("step", step, "loss", loss.item())
