import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.randn(960, 12)
y = (x[:, 0] > 0).float()
model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
BATCH = 32
for _epoch in range(4):
    for b in range(len(x) // BATCH):  # expect: shuffle=False
        xb, yb = x[b * BATCH:(b + 1) * BATCH], y[b * BATCH:(b + 1) * BATCH]
        loss = F.binary_cross_entropy_with_logits(model(xb).squeeze(1), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
