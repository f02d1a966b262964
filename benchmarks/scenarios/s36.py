"""REINFORCE agent on a 6x6 gridworld: reach the goal in the far corner."""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(36)
rng = np.random.default_rng(36)

SIZE, MAX_STEPS, GAMMA = 6, 30, 0.97
MOVES = [(-1, 0), (1, 0), (0, -1), (0, 1)]
GOAL = (SIZE - 1, SIZE - 1)


class GridWorld:
    def reset(self):
        self.pos = (0, 0)
        self.t = 0
        return self.obs()

    def obs(self):
        o = np.zeros(2 * SIZE, np.float32)
        o[self.pos[0]] = 1.0
        o[SIZE + self.pos[1]] = 1.0
        return torch.from_numpy(o)

    def step(self, action):
        self.t += 1
        reached = self.pos == GOAL
        reward = 10.0 if reached else -0.1
        dr, dc = MOVES[action]
        self.pos = (min(max(self.pos[0] + dr, 0), SIZE - 1), min(max(self.pos[1] + dc, 0), SIZE - 1))
        done = reached or self.t >= MAX_STEPS
        return self.obs(), reward, done


policy = nn.Sequential(nn.Linear(2 * SIZE, 64), nn.Tanh(), nn.Linear(64, 4))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
env = GridWorld()

with open("metrics.csv", "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["step", "loss", "reward"])
    for episode in range(400):
        obs, done = env.reset(), False
        log_probs, rewards = [], []
        while not done:
            dist = torch.distributions.Categorical(logits=policy(obs))
            action = dist.sample()
            obs, r, done = env.step(action.item())
            log_probs.append(dist.log_prob(action))
            rewards.append(r)
        returns, g = [], 0.0
        for r in reversed(rewards):
            g = r + GAMMA * g
            returns.insert(0, g)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + 1e-8)
        loss = -(torch.stack(log_probs) * returns).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        writer.writerow([episode, f"{loss.item():.5f}", f"{sum(rewards):.3f}"])
        if episode % 50 == 0:
            print(f"episode {episode:4d}  return {sum(rewards):7.2f}  length {len(rewards)}  loss {loss.item():.3f}")
