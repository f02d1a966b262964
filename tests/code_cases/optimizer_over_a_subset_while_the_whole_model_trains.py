import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(6, 6), nn.ReLU())
        self.fc = nn.Linear(6, 2)

    def forward(self, x):
        return self.fc(self.features(x))


model = Net()
optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.01)  # expect: params_not_in_optimizer=['model.features: the optimizer (line 16) holds only model.fc.parameters() while model trains']
x, y = torch.randn(8, 6), torch.randint(0, 2, (8,))
for _ in range(3):
    optimizer.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    optimizer.step()

# (from test_optimizer_over_a_subset_while_the_whole_model_trains in the former tests/test_code_reader.py)
