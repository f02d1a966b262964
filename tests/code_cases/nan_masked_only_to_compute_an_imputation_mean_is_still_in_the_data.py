import torch
import torch.nn as nn

price = torch.rand(500) * 40 + 10
price[torch.rand(500) < 0.03] = float("nan")  # expect: nan_written_to_data=True
p_mean = price[~torch.isnan(price)].mean()
feats = torch.stack([price - p_mean, torch.randn(500)], dim=1)
target = torch.randn(500, 1)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(50):
    loss = nn.functional.mse_loss(model(feats), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
