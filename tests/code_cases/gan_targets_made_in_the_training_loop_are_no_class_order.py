import torch
import torch.nn as nn

G = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
D = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
real = torch.randn(512, 4)
for i in range(0, 512, 32):
    fake = G(torch.randn(32, 8)).detach()
    xb = torch.cat([real[i:i + 32], fake])
    target = torch.cat([torch.ones(32), torch.zeros(32)])  # expect-not: data_sorted
    opt_d.zero_grad()
    loss = nn.functional.binary_cross_entropy_with_logits(D(xb).squeeze(1), target)
    loss.backward()
    opt_d.step()
