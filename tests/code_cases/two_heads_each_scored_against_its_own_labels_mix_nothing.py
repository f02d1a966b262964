import torch
import torch.nn as nn
import torch.nn.functional as F

trunk = nn.Sequential(nn.Linear(20, 32), nn.ReLU())
species_head, colour_head = nn.Linear(32, 4), nn.Linear(32, 3)
params = list(trunk.parameters()) + list(species_head.parameters()) + list(colour_head.parameters())
opt = torch.optim.Adam(params, lr=1e-3)
x = torch.randn(256, 20)
species, colour = torch.randint(0, 4, (256,)), torch.randint(0, 3, (256,))
for step in range(50):
    h = trunk(x)
    loss = F.cross_entropy(species_head(h), species) + 0.5 * F.cross_entropy(colour_head(h), colour)
    opt.zero_grad()
    loss.backward()
    opt.step()

# expect-not: loss_mixes_targets
