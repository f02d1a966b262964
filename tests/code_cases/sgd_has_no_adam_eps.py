import torch

model = torch.nn.Linear(8, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)  # expect: momentum=0.9
for step in range(10):
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()

# expect-not: adam_eps
