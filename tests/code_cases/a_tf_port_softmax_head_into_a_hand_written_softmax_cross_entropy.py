import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        output = self.fc2(F.relu(self.fc1(x)))
        return F.softmax(output, dim=1)  # expect: loss_squashes_twice=True


def softmax_cross_entropy_with_logits(logits, labels):
    return -(labels * F.log_softmax(logits, dim=1)).sum(1)


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
x, y = torch.randn(50, 20), F.one_hot(torch.randint(0, 10, (50,)), 10).float()
for _ in range(3):
    y_conv = model(x)
    loss = softmax_cross_entropy_with_logits(logits=y_conv, labels=y).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

# expect-detail: loss_squashes_twice: squashed again on its way to the loss
