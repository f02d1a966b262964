import torch
import torch.nn.functional as F


def compute_loss(model, x, y):
    return F.cross_entropy(model(x), y)  # expect: custom_loss=False; loss_function='cross_entropy'


model = torch.nn.Linear(5, 3)
opt = torch.optim.Adam(model.parameters())
x, y = torch.randn(8, 5), torch.randint(0, 3, (8,))
for _ in range(2):
    opt.zero_grad()
    compute_loss(model, x, y).backward()
    opt.step()

# (from test_focal_loss_built_on_cross_entropy_is_custom_but_a_thin_wrapper_is_not in the former tests/test_code_reader.py)
