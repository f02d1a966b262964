import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(64, 2), torch.randint(0, 7, (64,)).float()
for step in range(100):
    optimizer.zero_grad()
    pred = model(x).squeeze(1)
    loss = nn.functional.mse_loss(pred, y)
    loss.backward()
    optimizer.step()
    acc = (pred.round() == y).float().mean()

# expect-not: loss_mixes_tasks
