import torch.nn as nn


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.weight, 0.5)  # expect: init_constant=True
        m.bias.data.zero_()


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
model.apply(init_weights)

# (from test_constant_init_through_apply_and_fill in the former tests/test_code_reader.py)
