import torch
import torch.nn as nn


def make_data(n, g):
    x = torch.randn(n, 8, generator=g)
    t = torch.exp(x[:, 0] + 0.1 * torch.randn(n, generator=g))
    e = (torch.rand(n, generator=g) < 0.7).float()
    return x, t, e


g = torch.Generator().manual_seed(0)
x_tr, t_tr, e_tr = make_data(1000, g)
order = torch.argsort(t_tr, descending=True)
t_tr, e_tr = t_tr[order], e_tr[order]  # expect: permuted_alone=True


def cox_loss(risk, t, e):
    o = torch.argsort(t, descending=True)
    risk, e = risk[o], e[o]
    return -((risk - torch.logcumsumexp(risk, dim=0)) * e).sum() / e.sum().clamp(min=1)


model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(5):
    perm = torch.randperm(1000)
    for i in range(0, 1000, 100):
        idx = perm[i:i + 100]
        loss = cox_loss(model(x_tr[idx]).squeeze(1), t_tr[idx], e_tr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()

# expect-detail: permuted_alone: but not x_tr
