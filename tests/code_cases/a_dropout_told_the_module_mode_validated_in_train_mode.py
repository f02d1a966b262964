import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.out = nn.Linear(32, 4)

    def forward(self, x):
        return self.out(F.dropout(F.relu(self.fc1(x)), 0.5, training=self.training))


net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.01)
X, Y = torch.randn(128, 16), torch.randint(0, 4, (128,))
Xv, Yv = torch.randn(64, 16), torch.randint(0, 4, (64,))
for epoch in range(3):
    net.train()
    for s in range(0, 128, 16):
        loss = F.cross_entropy(net(X[s:s + 16]), Y[s:s + 16])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        acc = (net(Xv).argmax(1) == Yv).float().mean()  # expect: model_mode_in_validation=train

# expect-not: validation_mode_free
