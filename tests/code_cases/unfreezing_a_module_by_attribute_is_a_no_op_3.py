import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        return self.head(self.encoder(x))

model = Net()
for p in model.encoder.parameters():
    p.requires_grad = False
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(10):
    if epoch == 3:
        model.head.requires_grad = False
    x, y = torch.randn(4, 8), torch.randint(0, 3, (4,))
    optimizer.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    optimizer.step()

# expect-not: requires_grad_attr_on_module
# (from test_unfreezing_a_module_by_attribute_is_a_no_op in the former tests/test_code_reader.py)
