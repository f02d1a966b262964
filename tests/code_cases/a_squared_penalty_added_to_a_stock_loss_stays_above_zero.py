import torch
import torch.nn as nn
import torch.nn.functional as F

enc = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))
dec = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16))
opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-3)
x = torch.randn(512, 16)

for step in range(200):
    z = enc(x)
    rec = F.mse_loss(dec(z), x)  # expect: loss_function=mse
    loss = rec + 0.01 * (z ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

# expect-not: loss_own_terms_signed
