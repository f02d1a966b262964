import torch
import torch.nn as nn

model = nn.Linear(8, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(64, 8), torch.randint(0, 2, (64,))
for epoch in range(10):
    for g in optimizer.param_groups:
        g["lr"] = 0.1 * 0.5 ** epoch
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()

# expect-not: scheduler
