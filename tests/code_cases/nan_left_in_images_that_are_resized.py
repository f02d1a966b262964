import torch
import torch.nn as nn
import torch.nn.functional as F

g = torch.Generator().manual_seed(0)
imgs = F.interpolate(torch.randn(256, 1, 16, 16, generator=g), size=(32, 32), mode="bilinear", align_corners=False)
bad = torch.rand(256, generator=g) < 0.02
imgs[bad, 0, 4:7, 4:7] = float("nan")  # expect: nan_written_to_data=True
target = torch.randn(256, 1)
model = nn.Sequential(nn.Flatten(), nn.Linear(32 * 32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(20):
    loss = F.mse_loss(model(imgs), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
