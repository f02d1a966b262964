import torch.nn as nn
from torch import optim
from torch.optim import Adagrad

LR = 0.04
WD = 1e-5
model = nn.Linear(3, 1)
opt = Adagrad(params=model.parameters(), lr=LR, weight_decay=WD)  # expect: optimizer='adagrad'; learning_rate=0.04; weight_decay=1e-05

# (from test_optimizer_class_lr_positional_keyword_and_defaults[Adagrad(params=model.parameters(), lr=LR, weight_decay=WD)-adagrad-0.04-1e-05] in the former tests/test_code_reader.py)
