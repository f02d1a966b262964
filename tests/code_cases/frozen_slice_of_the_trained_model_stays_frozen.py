import torch
import torch.nn as nn

model = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.Tanh(), nn.Conv2d(32, 16, 3, padding=1), nn.Tanh(),
                      nn.Conv2d(16, 4, 3, padding=1), nn.PixelShuffle(2))
for p in model[:4].parameters():
    p.requires_grad = False  # expect: frozen_params=['model[:4].parameters()']; frozen_weights='random_init'
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x, y = torch.randn(16, 1, 8, 8), torch.randn(16, 1, 16, 16)
for step in range(10):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()

# (a slice of the trained model's own layers: the reader does not bind `model[:4]` to them, so it is never
# taken for a module outside the model the loss trains)
