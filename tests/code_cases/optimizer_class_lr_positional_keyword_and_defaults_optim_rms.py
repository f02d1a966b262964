import torch.nn as nn
from torch import optim
from torch.optim import Adagrad

LR = 0.04
WD = 1e-5
model = nn.Linear(3, 1)
opt = optim.RMSprop(model.parameters(), 0.002)  # expect: optimizer='rmsprop'; learning_rate=0.002; weight_decay=0.0

# (from test_optimizer_class_lr_positional_keyword_and_defaults[optim.RMSprop(model.parameters(), 0.002)-rmsprop-0.002-0.0] in the former tests/test_code_reader.py)
