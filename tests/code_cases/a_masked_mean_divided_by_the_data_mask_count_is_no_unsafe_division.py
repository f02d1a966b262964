import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


# padded sequences: each row keeps a different number of positions
def make_mask(n, length):
    m = np.zeros((n, length), np.float32)
    for i in range(n):
        m[i, :3 + i % 5] = 1
    return torch.tensor(m)


# the loss is a masked mean, divided by how many positions the data mask keeps: that count comes from
# the data, not the model, so it cannot drift towards 0 as training goes on
def masked_l1(pred, y, m):
    err = F.l1_loss(pred, y, reduction="none")
    pooled = torch.div((pred * m).sum(1), m.sum(1))
    return (err * m).sum() / m.sum() + 0.1 * pooled.pow(2).mean()


net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
feats, target, keep = torch.randn(64, 12, 4), torch.randn(64, 12), make_mask(64, 12)
for epoch in range(3):
    for i in range(0, 64, 16):
        loss = masked_l1(net(feats[i:i + 16]).squeeze(-1), target[i:i + 16], keep[i:i + 16])
        opt.zero_grad()
        loss.backward()  # expect: unsafe_math=[]
        opt.step()
