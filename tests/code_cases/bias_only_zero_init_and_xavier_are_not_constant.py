import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        nn.init.xavier_uniform_(self.fc.weight)
        nn.init.zeros_(self.fc.bias)

    def forward(self, x):
        return self.fc(x)


model = Net()  # expect: init_constant=False

# (from test_bias_only_zero_init_and_xavier_are_not_constant in the former tests/test_code_reader.py)
