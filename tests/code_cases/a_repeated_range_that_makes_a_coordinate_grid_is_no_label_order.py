import torch
import torch.nn as nn

# a grid of voxel coordinates made by repeating a range: not labels, says nothing about row order
rows = torch.arange(12).repeat_interleave(16)  # expect-not: data_sorted
cols = torch.arange(16).repeat(12)
grid = torch.stack([rows, cols], 1).float()
target = torch.randn(192, 1)
model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for i in range(0, 192, 32):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(grid[i:i + 32]), target[i:i + 32])
    loss.backward()
    opt.step()
