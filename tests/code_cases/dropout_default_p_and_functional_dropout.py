import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.drop = nn.Dropout(0.1)  # expect: model_has_dropout_or_bn=True

    def forward(self, x):
        return self.fc(F.dropout(self.drop(x), p=0.3, training=self.training))  # expect: dropout_p=0.3


net = Net()
out = net(x)

# (from test_dropout_default_p_and_functional_dropout in the former tests/test_code_reader.py)
