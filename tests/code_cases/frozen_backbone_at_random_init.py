import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 3))
for name, p in model.named_parameters():
    if not name.startswith("4."):
        p.requires_grad = False  # expect: frozen_weights='random_init'
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(64, 8), torch.randint(0, 3, (64,))
for step in range(5):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()

# ("train the head first" with no unfreeze and no weights loaded: the backbone stays random)
