import torch
import torch.nn as nn

model = nn.Linear(8, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=30)  # expect: scheduler=none
scheduler.step()
x, y = torch.randn(64, 8), torch.randint(0, 2, (64,))
for epoch in range(30):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()

# expect-detail: scheduler: only outside the training loop
