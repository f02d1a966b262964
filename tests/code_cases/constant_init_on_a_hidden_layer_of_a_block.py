import torch.nn as nn

net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 2))
nn.init.zeros_(net[-1].weight)
nn.init.zeros_(net[0].weight)  # expect: init_constant=True

# (a hidden layer set to zero is still a symmetry fault, even beside a zero-initialised last layer)
