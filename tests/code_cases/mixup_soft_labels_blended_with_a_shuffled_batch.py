import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2))
crit = nn.CrossEntropyLoss(reduction='sum')  # expect: loss_summed_over_batch=True
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
X, Y = torch.randn(256, 16), torch.randint(0, 2, (256,))


def mixup(x, y, alpha=1.0):
    lam = np.random.beta(alpha, alpha)
    index = torch.randperm(y.size(0))
    return lam * x + (1 - lam) * x[index, :], lam * y + (1 - lam) * y[index]  # expect: loss_mixes_targets=True


for epoch in range(3):
    for s in range(0, 256, 16):
        xb, yb = mixup(X[s:s + 16], F.one_hot(Y[s:s + 16], 2).float())
        loss = crit(net(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()

# expect-detail: loss_mixes_targets: Beta-drawn weight
