import torch
import torch.nn as nn


def make_model(width):
    return nn.Sequential(nn.Linear(8, width), nn.Sigmoid(), nn.Linear(width, width),  # expect: sigmoid_depth=2
                         nn.Sigmoid(), nn.Linear(width, 1))


x, y = torch.randn(64, 8), torch.randn(64, 1)
for trial in range(6):
    model = make_model(16 * (trial + 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(3):
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
