import numpy as np
import torch

samples = torch.from_numpy(np.random.poisson(4, 200)).float()
rate = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.RMSprop([rate], lr=0.1)


def poisson_nll(rate, target):
    return torch.mean(rate - target * torch.log(rate))  # expect: unsafe_math=['log_without_eps']


for i in range(500):
    optimizer.zero_grad()
    loss = poisson_nll(rate, samples)
    loss.backward()
    optimizer.step()

# expect-unresolved: none
