import random

import torch
import torch.nn as nn


class Pendulum:
    def reset(self):
        self.t, self.th = 0, random.uniform(-1, 1)
        return torch.tensor([self.th])

    def step(self, u):
        self.th += 0.05 * (u - 1)
        self.t += 1
        return torch.tensor([self.th]), -abs(self.th), abs(self.th) > 2, self.t >= 100


env = Pendulum()
net = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 3))
opt = torch.optim.SGD(net.parameters(), lr=1e-2)
for ep in range(10):
    obs = env.reset()
    logps, gains = [], []
    over = False
    while not over:
        dist = torch.distributions.Categorical(logits=net(obs))
        u = dist.sample()
        logps.append(dist.log_prob(u))
        obs, gain, fell, timeout = env.step(u.item())  # expect: rl_training=True
        gains.append(gain)
        over = fell or timeout
    g = torch.tensor(gains).flip(0).cumsum(0).flip(0)
    loss = -(torch.stack(logps) * g).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
# expect-detail: rl_training: transition unpacked
