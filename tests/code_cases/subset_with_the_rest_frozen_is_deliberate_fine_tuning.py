import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(6, 6), nn.ReLU())
        self.fc = nn.Linear(6, 2)

    def forward(self, x):
        return self.fc(self.backbone(x))


model = Net()
for name, p in model.named_parameters():
    if not name.startswith("fc"):
        p.requires_grad = False  # expect: frozen_params=["model.named_parameters() (if not name.startswith('fc'))", 'model.backbone']
model.backbone.requires_grad_(False)
optimizer = torch.optim.Adam(model.fc.parameters(), lr=1e-3)  # expect: params_not_in_optimizer=[]
x, y = torch.randn(8, 6), torch.randint(0, 2, (8,))
for _ in range(3):
    optimizer.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    optimizer.step()

# (from test_subset_with_the_rest_frozen_is_deliberate_fine_tuning in the former tests/test_code_reader.py)
