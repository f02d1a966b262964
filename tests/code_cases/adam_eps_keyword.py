import torch

model = torch.nn.Linear(8, 3)
opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=0.1)  # expect: adam_eps=0.1
for step in range(10):
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()

# expect-detail: adam_eps: eps=0.1
