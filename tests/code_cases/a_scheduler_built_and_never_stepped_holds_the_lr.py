import torch
import torch.nn as nn

model = nn.Linear(8, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.3)  # expect: scheduler=none
x, y = torch.randn(64, 8), torch.randint(0, 2, (64,))
for epoch in range(20):
    for i in range(0, 64, 16):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x[i:i + 16]), y[i:i + 16])
        loss.backward()
        optimizer.step()

# expect-detail: scheduler: is never stepped
