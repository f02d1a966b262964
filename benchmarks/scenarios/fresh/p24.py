"""REINFORCE agent for a 1-D corridor: reach the charging dock at the right end."""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(24)
rng = np.random.default_rng(24)
LENGTH, MAX_STEPS, GAMMA = 20, 40, 0.99


class Corridor:
    def reset(self):
        self.pos, self.t = 2, 0
        return self.obs()

    def obs(self):
        o = np.zeros(LENGTH, np.float32)
        o[self.pos] = 1.0
        return torch.from_numpy(o)

    def step(self, a):
        self.t += 1
        self.pos = int(np.clip(self.pos + (1 if a == 1 else -1), 0, LENGTH - 1))
        battery_cost = -0.05 * (a == 1)
        done = self.pos == LENGTH - 1 or self.t >= MAX_STEPS
        reward = battery_cost + (1.0 if self.pos == LENGTH - 1 else 0.0)
        return self.obs(), reward, done


policy = nn.Sequential(nn.Linear(LENGTH, 32), nn.Tanh(), nn.Linear(32, 2))
opt = torch.optim.Adam(policy.parameters(), lr=5e-3)
env = Corridor()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["episode", "return", "episode_length", "policy_loss", "entropy", "p_right"])
    for ep in range(200):
        obs, done = env.reset(), False
        logps, rewards, ents, pr = [], [], [], []
        while not done:
            dist = torch.distributions.Categorical(logits=policy(obs))
            a = dist.sample()
            logps.append(dist.log_prob(a))
            ents.append(dist.entropy())
            pr.append(dist.probs[1].item())
            obs, r, done = env.step(a.item())
            rewards.append(r)
        G, rets = 0.0, []
        for r in reversed(rewards):
            G = r + GAMMA * G
            rets.insert(0, G)
        rets = torch.tensor(rets)
        loss = -(torch.stack(logps) * rets).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        w.writerow([ep, round(sum(rewards), 4), len(rewards), round(loss.item(), 5),
                    round(torch.stack(ents).mean().item(), 4), round(float(np.mean(pr)), 4)])
        if ep % 25 == 0:
            print(f"episode {ep:4d}  return {sum(rewards):+.3f}  len {len(rewards)}  p_right {np.mean(pr):.3f}  loss {loss.item():.4f}")
