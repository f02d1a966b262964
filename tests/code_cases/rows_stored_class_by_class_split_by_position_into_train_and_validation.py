import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.randn(900, 10)
y = torch.arange(3).repeat_interleave(300)
idx = list(range(900))
tr, va = torch.tensor(idx[:600]), torch.tensor(idx[600:])  # expect: split_in_label_order=True
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(5):
    perm = tr[torch.randperm(len(tr))]
    for k in range(0, len(perm), 32):
        i = perm[k:k + 32]
        opt.zero_grad()
        F.cross_entropy(model(x[i]), y[i]).backward()
        opt.step()
    with torch.no_grad():
        val_loss = F.cross_entropy(model(x[va]), y[va])
