import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        return F.softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(50, 20), F.one_hot(torch.randint(0, 10, (50,)), 10).float()
for step in range(3):
    probs = model(x)
    loss = -(y * torch.log(probs + 1e-8)).sum(1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    sharp = F.softmax(probs.detach() * 10, dim=1)
    shown = F.softmax(probs, dim=1)
    print(step, loss.item(), sharp.max(1).values.mean().item(), shown.argmax(1)[:5])

# expect-not: loss_squashes_twice
