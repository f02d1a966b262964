import torch

EPS = 1e-3
enc = torch.nn.Linear(8, 8)
model = torch.nn.Sequential(enc, torch.nn.ReLU(), torch.nn.Linear(8, 3))
opt = torch.optim.AdamW(model.parameters(), 1e-3, (0.9, 0.999), EPS)  # expect: adam_eps=0.001
for step in range(10):
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
