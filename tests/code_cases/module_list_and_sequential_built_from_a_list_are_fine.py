import torch.nn as nn
import torch


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
        layers = [nn.Linear(4, 4), nn.ReLU()]
        self.stem = nn.Sequential(*layers)
        self.sizes = [4, 4, 2]

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.stem(x)


model = Net()
opt = torch.optim.Adam(model.parameters())  # expect: params_not_in_optimizer=[]
x = torch.randn(2, 4)
for _ in range(2):
    opt.zero_grad()
    model(x).sum().backward()
    opt.step()

# (from test_module_list_and_sequential_built_from_a_list_are_fine in the former tests/test_code_reader.py)
