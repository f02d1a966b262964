import torch
import torch.nn as nn

encoder = nn.Sequential(nn.Linear(20, 64), nn.ReLU())
for p in encoder.parameters():
    p.requires_grad = False  # expect: frozen_params=['encoder.parameters()']; frozen_weights='random_init'
head = nn.Linear(64, 4)
optimizer = torch.optim.Adam(list(encoder.parameters()) + list(head.parameters()), lr=1e-3)
x, y = torch.randn(256, 20), torch.randint(0, 4, (256,))
for step in range(20):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(head(encoder(x)), y)
    loss.backward()
    optimizer.step()

# (two modules in the loss's path, the first frozen at its random init: that freeze is in what trains)
