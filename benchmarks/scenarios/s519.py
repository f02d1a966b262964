# IntelLabs/coach in miniature: a Dueling Double-DQN agent as in the CARLA_Dueling_DDQN preset (DDQN targets: the
# online network picks the next action, the target network values it; dueling head V(s) + A(s, a) - mean A; MSE
# loss on the TD targets; experience replay; epsilon-greedy exploration decayed linearly; the target network copied
# every fixed number of steps; Adam), with coach's per-episode log line "Training - Worker: 0 Episode: ...
# Total reward: ... Exploration: ... Steps: ... Training iteration: ..." and the mean loss of the episode's updates.
# CARLA is replaced by a CartPole balancing task simulated in the script (classic cart-pole equations, reward 1 per
# step, episode ends when the pole falls or after 200 steps), so that the run fits on a CPU: 2 x 64 hidden units,
# replay memory 20000, batch 32, one update per environment step after 500 warm-up steps, target copy every 250
# updates, epsilon 1.0 -> 0.05 over 4000 steps, discount 0.99, lr 5e-4, 10000 environment steps in all.
import csv, math, random
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); random.seed(0); torch.set_num_threads(1)

class CartPole:
    def __init__(self, seed):
        self.r = np.random.RandomState(seed)
    def reset(self):
        self.s = self.r.uniform(-0.05, 0.05, 4); self.t = 0
        return self.s.astype(np.float32)
    def step(self, a):
        x, xd, th, thd = self.s
        force = 10.0 if a == 1 else -10.0
        ct, st = math.cos(th), math.sin(th)
        temp = (force + 0.05 * thd ** 2 * st) / 1.1
        thacc = (9.8 * st - ct * temp) / (0.5 * (4.0 / 3.0 - 0.1 * ct ** 2 / 1.1))
        xacc = temp - 0.05 * thacc * ct / 1.1
        x, xd, th, thd = x + 0.02 * xd, xd + 0.02 * xacc, th + 0.02 * thd, thd + 0.02 * thacc
        self.s = np.array([x, xd, th, thd]); self.t += 1
        fell = abs(x) > 2.4 or abs(th) > 12 * 2 * math.pi / 360
        return self.s.astype(np.float32), 1.0, fell, self.t >= 200

class DuelingQ(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.v, self.a = nn.Linear(64, 1), nn.Linear(64, 2)
    def forward(self, s):
        h = self.body(s); a = self.a(h)
        return self.v(h) + a - a.mean(1, keepdim=True)

online, target = DuelingQ(), DuelingQ()
target.load_state_dict(online.state_dict())
opt = torch.optim.Adam(online.parameters(), lr=5e-4)
memory, cap = [], 20000
env = CartPole(1)
total_steps, train_iter, episode = 0, 0, 0
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['episode', 'steps', 'total_reward', 'exploration', 'training_iteration', 'loss', 'mean_q'])
while total_steps < 10000:
    s = env.reset(); ep_r = 0.0; losses, qs = [], []; episode += 1
    while True:
        eps = max(0.05, 1.0 - 0.95 * total_steps / 4000)
        if random.random() < eps:
            a = random.randrange(2)
        else:
            with torch.no_grad():
                a = int(online(torch.tensor(s)[None]).argmax(1))
        s2, rwd, fell, timeout = env.step(a); ep_r += rwd; total_steps += 1
        memory.append((s, a, rwd, s2, float(fell)))
        if len(memory) > cap: memory.pop(0)
        s = s2
        if total_steps > 500:
            b = random.sample(memory, 32)
            S = torch.tensor(np.stack([m[0] for m in b])); A = torch.tensor([m[1] for m in b])
            R = torch.tensor([m[2] for m in b]); S2 = torch.tensor(np.stack([m[3] for m in b])); D = torch.tensor([m[4] for m in b])
            with torch.no_grad():
                a2 = online(S2).argmax(1, keepdim=True)
                y = R + 0.99 * (1 - D) * target(S2).gather(1, a2).squeeze(1)
            q = online(S).gather(1, A[:, None]).squeeze(1)
            loss = F.mse_loss(q, y)
            opt.zero_grad(); loss.backward(); opt.step(); train_iter += 1
            losses.append(loss.item()); qs.append(q.mean().item())
            if train_iter % 250 == 0:
                target.load_state_dict(online.state_dict())
        if fell or timeout or total_steps >= 10000:
            break
    ml = float(np.mean(losses)) if losses else float('nan'); mq = float(np.mean(qs)) if qs else float('nan')
    print('Training - Worker: 0 Episode: {} Total reward: {} Exploration: {:.2f} Steps: {} Training iteration: {} Loss: {:.4f} Mean Q: {:.2f}'.format(
        episode, ep_r, eps, total_steps, train_iter, ml, mq))
    wr.writerow([episode, total_steps, ep_r, round(eps, 4), train_iter, round(ml, 5) if losses else '', round(mq, 4) if qs else ''])
f.close()
