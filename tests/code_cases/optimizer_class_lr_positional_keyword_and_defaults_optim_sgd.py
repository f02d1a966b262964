import torch.nn as nn
from torch import optim
from torch.optim import Adagrad

LR = 0.04
WD = 1e-5
model = nn.Linear(3, 1)
opt = optim.SGD(model.parameters(), 0.3, momentum=0.9)  # expect: optimizer='sgd'; learning_rate=0.3; weight_decay=0.0

# (from test_optimizer_class_lr_positional_keyword_and_defaults[optim.SGD(model.parameters(), 0.3, momentum=0.9)-sgd-0.3-0.0] in the former tests/test_code_reader.py)
