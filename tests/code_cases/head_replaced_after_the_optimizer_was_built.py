import torch
from torch import nn

model = nn.Sequential(nn.Linear(10, 10), nn.ReLU())
model.head = nn.Linear(10, 3)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
model.head = nn.Linear(10, 5)  # expect: params_not_in_optimizer=['model.head replaced at line 7, after the optimizer was built at line 6']
x, y = torch.randn(4, 10), torch.randint(0, 5, (4,))
for _ in range(2):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model.head(model(x)), y)
    loss.backward()
    optimizer.step()

# (from test_head_replaced_after_the_optimizer_was_built in the former tests/test_code_reader.py)
