import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
for param in model.parameters():
    param.requires_grad = False  # expect: frozen_params=['model.parameters()']
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

# (from test_frozen_parameters_are_listed in the former tests/test_code_reader.py)
