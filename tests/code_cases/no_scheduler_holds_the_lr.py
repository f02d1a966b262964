import torch
import torch.nn as nn

model = nn.Linear(8, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)  # expect: scheduler=none
x, y = torch.randn(64, 8), torch.randint(0, 2, (64,))
for step in range(10):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()

# expect-detail: scheduler: is held for the whole run
