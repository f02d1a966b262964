import torch
import torch.nn as nn
import torch.nn.functional as F


class HandNorm(nn.Module):
    def __init__(self, c, decay=0.9):
        super().__init__()
        self.shift = nn.Parameter(torch.zeros(c))
        self.decay = decay
        self.register_buffer("avg_mean", torch.zeros(c))
        self.register_buffer("avg_var", torch.ones(c))
        self.pending = []

    def forward(self, x, train_flag):
        if train_flag:
            mean, var = x.mean(0), x.var(0, unbiased=False)
            self.pending = [(mean.detach(), var.detach())]
        else:
            mean, var = self.avg_mean, self.avg_var  # expect: eval_stats_never_updated=True
        return (x - mean) / torch.sqrt(var + 1e-3) + self.shift

    def apply_pending(self):
        for mean, var in self.pending:
            self.avg_mean.mul_(self.decay).add_((1 - self.decay) * mean)
            self.avg_var.mul_(self.decay).add_((1 - self.decay) * var)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 32)
        self.norm = HandNorm(32)
        self.out = nn.Linear(32, 2)

    def forward(self, x, train_flag):
        return self.out(F.relu(self.norm(self.fc(x), train_flag)))


net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.05)
x, y = torch.randn(256, 10) * 3 + 5, torch.randint(0, 2, (256,))
for step in range(50):
    loss = F.cross_entropy(net(x, train_flag=True), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    val_acc = (net(x, train_flag=False).argmax(1) == y).float().mean()
print(f"val_acc {val_acc:.3f}")
