"""REINFORCE on a self-contained cart-pole (classic Barto-Sutton dynamics, no gym needed).

Policy: 2-layer MLP with dropout, Adam 1e-2, discounted returns normalised per episode.
Logs episode length (= reward) and the policy loss.
"""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(155)
torch.set_num_threads(1)

CFG = {"episodes": 300, "gamma": 0.99, "lr": 1e-2, "max_steps": 200}


class CartPole:
    g, mc, mp, l, f, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02

    def __init__(self, rng):
        self.rng = rng

    def reset(self):
        self.s = self.rng.uniform(-0.05, 0.05, 4)
        return self.s.astype(np.float32)

    def step(self, a):
        x, xd, th, thd = self.s
        force = self.f if a == 1 else -self.f
        ct, st = math.cos(th), math.sin(th)
        tmp = (force + self.mp * self.l * thd ** 2 * st) / (self.mc + self.mp)
        thacc = (self.g * st - ct * tmp) / (self.l * (4 / 3 - self.mp * ct ** 2 / (self.mc + self.mp)))
        xacc = tmp - self.mp * self.l * thacc * ct / (self.mc + self.mp)
        self.s = np.array([x + self.tau * xd, xd + self.tau * xacc, th + self.tau * thd, thd + self.tau * thacc])
        done = abs(self.s[0]) > 2.4 or abs(self.s[2]) > 12 * 2 * math.pi / 360
        return self.s.astype(np.float32), 1.0, done


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 128)
        self.drop = nn.Dropout(0.6)
        self.fc2 = nn.Linear(128, 2)

    def forward(self, s):
        return F.softmax(self.fc2(F.relu(self.drop(self.fc1(s)))), dim=-1)


def main():
    rng = np.random.default_rng(155)
    env, policy = CartPole(rng), Policy()
    opt = torch.optim.Adam(policy.parameters(), lr=CFG["lr"])
    running = 10.0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["episode", "reward", "running_reward", "policy_loss"])
        for ep in range(CFG["episodes"]):
            s, logps, rewards = env.reset(), [], []
            for _ in range(CFG["max_steps"]):
                probs = policy(torch.from_numpy(s))
                dist = torch.distributions.Categorical(probs)
                a = dist.sample()
                logps.append(dist.log_prob(a))
                s, r, done = env.step(a.item())
                rewards.append(r)
                if done:
                    break
            R, returns = 0.0, []
            for r in reversed(rewards):
                R = r + CFG["gamma"] * R
                returns.insert(0, R)
            returns = torch.tensor(returns)
            returns = (returns - returns.mean()) / (returns.std() + 1e-8)
            loss = -(torch.stack(logps) * returns).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            ep_r = sum(rewards)
            running = 0.05 * ep_r + 0.95 * running
            w.writerow([ep, ep_r, f"{running:.2f}", f"{loss.item():.4f}"])
            if ep % 25 == 0:
                print(f"episode {ep:4d}  reward {ep_r:5.0f}  running {running:6.1f}  loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
