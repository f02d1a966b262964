# DDPG (actor-critic, replay buffer, soft target updates) applied to CartPole (dynamics
# re-implemented: 4-d state, reward +1 per step, episode ends when the pole falls or after 200
# steps). The actor outputs a continuous value in [-1, 1] (tanh) with Ornstein-Uhlenbeck
# exploration noise, mapped to the discrete push via action = 1 if a > 0 else 0; critic Q(s, a).
# Actor lr 1e-4, critic lr 1e-3, gamma 0.99, tau 0.001, minibatch 64, 300 episodes.
import math, random
from collections import deque
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
random.seed(0)

class CartPole:
    def reset(self):
        self.s = [random.uniform(-0.05, 0.05) for _ in range(4)]; self.t = 0
        return torch.tensor(self.s)
    def step(self, action):
        x, xd, th, thd = self.s
        force = 10.0 if action == 1 else -10.0
        ct, st = math.cos(th), math.sin(th)
        temp = (force + 0.05 * thd ** 2 * st) / 1.1
        thacc = (9.8 * st - ct * temp) / (0.5 * (4.0 / 3.0 - 0.1 * ct ** 2 / 1.1))
        xacc = temp - 0.05 * thacc * ct / 1.1
        x, xd, th, thd = x + 0.02 * xd, xd + 0.02 * xacc, th + 0.02 * thd, thd + 0.02 * thacc
        self.s = [x, xd, th, thd]; self.t += 1
        done = abs(x) > 2.4 or abs(th) > 12 * 2 * math.pi / 360 or self.t >= 200
        return torch.tensor(self.s), 1.0, done

actor = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 1), nn.Tanh())
critic = nn.Sequential(nn.Linear(5, 64), nn.ReLU(), nn.Linear(64, 1))
actor_t = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 1), nn.Tanh()); actor_t.load_state_dict(actor.state_dict())
critic_t = nn.Sequential(nn.Linear(5, 64), nn.ReLU(), nn.Linear(64, 1)); critic_t.load_state_dict(critic.state_dict())
a_opt = torch.optim.Adam(actor.parameters(), lr=1e-4)
c_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
buffer = deque(maxlen=100000)
env = CartPole()

def soft_update(tgt, src, tau=0.001):
    for p_t, p in zip(tgt.parameters(), src.parameters()):
        p_t.data.mul_(1 - tau).add_(tau * p.data)

for ep in range(1, 301):
    s = env.reset(); noise = 0.0; ep_reward = 0.0; qmax = 0.0; done = False
    while not done:
        noise += 0.15 * (0 - noise) + 0.2 * random.gauss(0, 1)      # OU process
        with torch.no_grad():
            a = float(actor(s)) + noise
        s2, r, done = env.step(1 if a > 0 else 0)
        buffer.append((s, max(-1.0, min(1.0, a)), r, s2, float(done)))
        s = s2; ep_reward += r
        if len(buffer) >= 64:
            batch = random.sample(buffer, 64)
            S = torch.stack([b[0] for b in batch]); A = torch.tensor([[b[1]] for b in batch])
            R = torch.tensor([[b[2]] for b in batch]); S2 = torch.stack([b[3] for b in batch]); D = torch.tensor([[b[4]] for b in batch])
            with torch.no_grad():
                y = R + 0.99 * (1 - D) * critic_t(torch.cat([S2, actor_t(S2)], 1))
            q = critic(torch.cat([S, A], 1))
            c_loss = F.mse_loss(q, y)
            c_opt.zero_grad(); c_loss.backward(); c_opt.step()
            a_loss = -critic(torch.cat([S, actor(S)], 1)).mean()
            a_opt.zero_grad(); a_loss.backward(); a_opt.step()
            soft_update(actor_t, actor); soft_update(critic_t, critic)
            qmax = max(qmax, q.max().item())
    if ep % 10 == 0:
        print('| Reward: %.2i' % int(ep_reward), " | Episode", ep, '| Qmax: %.4f' % qmax)
