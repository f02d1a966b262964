import torch
import torch.nn as nn

backbone = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
backbone.load_state_dict(torch.load("backbone.pt"))
head = nn.Linear(32, 3)
for p in backbone.parameters():
    p.requires_grad = False  # expect: frozen_weights='loaded'
model = nn.Sequential(backbone, head)
optimizer = torch.optim.Adam(head.parameters(), lr=1e-3)

# expect-detail: frozen_weights: weights are loaded (line 5)
