import torch
import torch.nn as nn
import torch.nn.functional as F

enc = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))
dec = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16))
opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-3)
x = torch.randn(512, 16)


def entropies(z):
    p = z.softmax(-1)
    per_sample = -(p * torch.log(p + 1e-8)).sum(-1).mean()
    avg = p.mean(0)
    return per_sample, -(avg * torch.log(avg + 1e-8)).sum()


for step in range(200):
    z = enc(x)
    rec = F.mse_loss(dec(z), x)  # expect: loss_function=mse
    sample_ent, batch_ent = entropies(z)
    gap = sample_ent - batch_ent
    loss = rec + 0.1 * gap  # expect: loss_own_terms_signed=True
    opt.zero_grad()
    loss.backward()
    opt.step()

# expect-detail: loss_own_terms_signed: can be below zero
