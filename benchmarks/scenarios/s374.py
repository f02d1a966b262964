"""Continuous-action PPO on a custom environment in miniature
(after the Lizhi-sjtu DRL-code-pytorch PPO-continuous script plugged into a
user's own environment; report written in Chinese).

Custom env: a 1-D thermal-control task (keep a temperature near a set point by
choosing a heating power in [-1, 1]); fixed initial state, 100 steps per
episode.  PPO with Gaussian policy (tanh MLP 64), GAE, clip 0.2, Adam 3e-4,
batch 1024, 10 epochs of mini-batches 64; evaluation every 2048 steps.
"""
import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Normal

torch.set_num_threads(1)
np.random.seed(10)
torch.manual_seed(10)


class ThermalEnv:
    """user-written environment"""
    max_episode_steps = 100

    def __init__(self):
        self.observation_dim, self.action_dim = 3, 1
        self.power = 0.0

    def reset(self):
        self.t = 0
        self.temp, self.outside = 15.0, 5.0
        return self._obs()

    def _obs(self):
        return np.array([(self.temp - 20.0) / 10.0, (self.outside - 5.0) / 10.0, self.t / 100.0], np.float32)

    def step(self, action):
        a = float(np.clip(action[0], -1, 1))
        # heating power of this step (self.power is what the heater is set to)
        self.temp += 0.1 * (self.outside - self.temp) + 2.0 * self.power
        self.t += 1
        r = -abs(self.temp - 20.0) / 10.0 - 0.01 * a * a
        done = self.t >= self.max_episode_steps
        return self._obs(), r, done


class Actor(nn.Module):
    def __init__(self, s, a):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(s, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, a))
        self.log_std = nn.Parameter(torch.zeros(1, a))

    def dist(self, s):
        mean = self.net(s)
        return Normal(mean, self.log_std.expand_as(mean).exp())


critic = nn.Sequential(nn.Linear(3, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
env, env_eval = ThermalEnv(), ThermalEnv()
actor = Actor(3, 1)
opt_a = torch.optim.Adam(actor.parameters(), lr=3e-4, eps=1e-5)
opt_c = torch.optim.Adam(critic.parameters(), lr=3e-4, eps=1e-5)
gamma, lam, clip, batch_size, mini = 0.99, 0.95, 0.2, 1024, 64


def evaluate_policy():
    s, done, ep_r = env_eval.reset(), False, 0.0
    while not done:
        with torch.no_grad():
            a = actor.net(torch.tensor(s)[None]).numpy()[0]
        s, r, done = env_eval.step(np.clip(a, -1, 1))
        ep_r += r
    return ep_r


buf = []
total_steps, evaluate_num = 0, 0
print("env=ThermalEnv  state_dim=3  action_dim=1  max_episode_steps=100")
s = env.reset()
while total_steps < 40960:
    with torch.no_grad():
        d = actor.dist(torch.tensor(s)[None])
        a = d.sample()
        lp = d.log_prob(a).sum(1)
    s2, r, done = env.step(np.clip(a.numpy()[0], -1, 1))
    buf.append((s, a.numpy()[0], lp.item(), r, s2, done))
    s = env.reset() if done else s2
    total_steps += 1
    if len(buf) == batch_size:
        S_ = torch.tensor(np.array([b[0] for b in buf])); A = torch.tensor(np.array([b[1] for b in buf]))
        LP = torch.tensor([b[2] for b in buf]); R = torch.tensor([b[3] for b in buf], dtype=torch.float32)
        S2 = torch.tensor(np.array([b[4] for b in buf])); D = torch.tensor([b[5] for b in buf], dtype=torch.float32)
        with torch.no_grad():
            v, v2 = critic(S_).squeeze(1), critic(S2).squeeze(1)
            deltas = R + gamma * (1 - D) * v2 - v
            adv = torch.zeros_like(R); gae = 0.0
            for t in reversed(range(len(buf))):
                gae = deltas[t] + gamma * lam * gae * (1 - D[t]); adv[t] = gae
            ret = adv + v
            adv = (adv - adv.mean()) / (adv.std() + 1e-5)
        for _ in range(10):
            for idx in torch.randperm(batch_size).split(mini):
                dist = actor.dist(S_[idx])
                ratio = (dist.log_prob(A[idx]).sum(1) - LP[idx]).exp()
                la = -torch.min(ratio * adv[idx], ratio.clamp(1 - clip, 1 + clip) * adv[idx]).mean() \
                    - 0.01 * dist.entropy().sum(1).mean()
                opt_a.zero_grad(); la.backward(); nn.utils.clip_grad_norm_(actor.parameters(), 0.5); opt_a.step()
                lc = ((critic(S_[idx]).squeeze(1) - ret[idx]) ** 2).mean()
                opt_c.zero_grad(); lc.backward(); nn.utils.clip_grad_norm_(critic.parameters(), 0.5); opt_c.step()
        buf = []
    if total_steps % 2048 == 0:
        evaluate_num += 1
        er = evaluate_policy()
        with torch.no_grad():
            probe = actor.net(torch.tensor(np.array([env_eval.reset(), [0.5, 0.0, 0.5], [-0.5, 0.0, 0.9]], np.float32))).numpy().ravel()
        print("evaluate_num:{} \t evaluate_reward:{:.6f} \t actions:{}".format(evaluate_num, er, np.round(probe, 4)))
