"""Residual MLP regressor for a smooth 12-d target function."""
import csv

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(22)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc1 = nn.Linear(width, width)
        self.fc2 = nn.Linear(width, width)
        self.act = nn.ReLU()

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(x)))


class ResMLP(nn.Module):
    def __init__(self, d_in=12, width=128, depth=4):
        super().__init__()
        self.stem = nn.Linear(d_in, width)
        self.blocks = nn.Sequential(*[Block(width) for _ in range(depth)])
        self.head = nn.Linear(width, 1)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x))).squeeze(-1)


x = torch.randn(4096, 12)
y = torch.sin(x[:, :4]).sum(1) + 0.5 * (x[:, 4] * x[:, 5]) + 0.05 * torch.randn(4096)
loader = DataLoader(TensorDataset(x, y), batch_size=128, shuffle=True)

model = ResMLP()
opt = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
criterion = nn.MSELoss()

with open("metrics.csv", "w") as f:
    f.write("step,epoch,loss,grad_norm\n")
    step = 0
    for epoch in range(4):
        for xb, yb in loader:
            opt.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            gnorm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
            opt.step()
            f.write(f"{step},{epoch},{loss.item():.6g},{gnorm:.6g}\n")
            step += 1
        print(f"epoch {epoch}: loss={loss.item():.4g} grad_norm={gnorm:.4g}")
