import itertools
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        self.classifier = nn.Linear(8, 2)

    def forward(self, x):
        return self.classifier(self.base(x))


model = Net()
extra = nn.Linear(2, 2)
opt = torch.optim.SGD([{"params": model.base.parameters()},  # expect: learning_rate=0.01; params_not_in_optimizer=['extra (torch.nn.Linear, line 17) is trained but no optimizer that steps holds its parameters (the one at line 18 holds model.base.parameters() of model (Net, line 16))']
                       {"params": model.classifier.parameters(), "lr": 1e-3}],
                      lr=1e-2, momentum=0.9)
unused = torch.optim.Adam(itertools.chain(model.parameters(), extra.parameters()))
for _ in range(2):
    opt.zero_grad()
    loss = nn.functional.mse_loss(extra(model(torch.randn(3, 4))), torch.zeros(3, 2))
    loss.backward()
    opt.step()

# expect-note: parameter groups
# (from test_param_groups_cover_the_model_but_an_optimizer_never_stepped_covers_nothing in the former tests/test_code_reader.py)
