import torch.nn as nn

layer = nn.Linear(4, 2)
layer.weight.data.fill_(0.01)  # expect: init_constant=True

# (from test_constant_init_through_apply_and_fill in the former tests/test_code_reader.py)
