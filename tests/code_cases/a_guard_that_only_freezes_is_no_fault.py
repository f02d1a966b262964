import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
for p in model[0].parameters():
    if p.requires_grad:
        p.requires_grad = False
opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
for _ in range(10):
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
# expect-not: unfreeze_guarded
