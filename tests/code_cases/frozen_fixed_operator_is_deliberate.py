import torch
import torch.nn as nn


class MeanShift(nn.Conv2d):
    """A 1x1 conv that subtracts the dataset's colour mean: an operator, not a layer to learn."""

    def __init__(self, mean, sign=-1):
        super().__init__(3, 3, kernel_size=1)
        self.weight.data = torch.eye(3).view(3, 3, 1, 1)
        self.bias.data = sign * torch.tensor(mean)
        for p in self.parameters():
            p.requires_grad = False  # expect: frozen_weights='assigned'


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.sub_mean = MeanShift((0.45, 0.44, 0.40))
        self.body = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 3, 3, padding=1))

    def forward(self, x):
        return self.body(self.sub_mean(x))


model = Net()
optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-4)
x, y = torch.rand(8, 3, 16, 16), torch.rand(8, 3, 16, 16)
for step in range(5):
    optimizer.zero_grad()
    loss = nn.functional.l1_loss(model(x), y)
    loss.backward()
    optimizer.step()

# expect-detail: frozen_weights: hold values the script writes into them
