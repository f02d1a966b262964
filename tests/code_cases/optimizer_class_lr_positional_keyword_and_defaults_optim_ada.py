import torch.nn as nn
from torch import optim
from torch.optim import Adagrad

LR = 0.04
WD = 1e-5
model = nn.Linear(3, 1)
opt = optim.Adam(model.parameters())  # expect: optimizer='adam'; learning_rate=0.001; weight_decay=0.0

# expect-detail: learning_rate: default
# (from test_optimizer_class_lr_positional_keyword_and_defaults[optim.Adam(model.parameters())-adam-0.001-0.0] in the former tests/test_code_reader.py)
