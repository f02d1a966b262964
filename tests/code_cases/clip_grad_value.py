import torch
from torch.nn.utils import clip_grad_value_

model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(3):
    opt.zero_grad()
    model(torch.randn(2, 3)).sum().backward()
    clip_grad_value_(model.parameters(), clip_value=0.01)  # expect: clip_max_norm=0.01
    opt.step()

# expect-detail: clip_max_norm: value
# (from test_clip_grad_value in the former tests/test_code_reader.py)
