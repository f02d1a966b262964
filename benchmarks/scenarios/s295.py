# Policy-gradient (REINFORCE) tutorial on CartPole in miniature: CartPole-v0 dynamics re-implemented in
# torch (no gym), policy net 4 -> 20 (ReLU) -> 2 softmax, episodes sampled from the policy, discounted
# and normalised returns (gamma 0.95), Adam lr 1e-4, one update per episode. Every 100 episodes the
# greedy policy (argmax action) is evaluated on 10 episodes and the average reward is printed.
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(295)


class CartPole:
    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02

    def reset(self):
        self.s = (torch.rand(4, generator=g) - 0.5) * 0.1
        return self.s.clone()

    def step(self, a):
        x, x_dot, th, th_dot = self.s.tolist()
        force = self.force_mag if a == 1 else -self.force_mag
        total = self.masspole + self.masscart; pml = self.masspole * self.length
        temp = (force + pml * th_dot ** 2 * math.sin(th)) / total
        th_acc = (self.gravity * math.sin(th) - math.cos(th) * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * math.cos(th) ** 2 / total))
        x_acc = temp - pml * th_acc * math.cos(th) / total
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * x_acc
        th, th_dot = th + self.tau * th_dot, th_dot + self.tau * th_acc
        self.s = torch.tensor([x, x_dot, th, th_dot])
        done = abs(x) > 2.4 or abs(th) > 12 * 2 * math.pi / 360
        return self.s.clone(), 1.0, done


env = CartPole()
policy = nn.Sequential(nn.Linear(4, 20), nn.ReLU(), nn.Linear(20, 2))
opt = torch.optim.Adam(policy.parameters(), lr=1e-4)
GAMMA, STEP = 0.95, 200
for episode in range(1001):
    s = env.reset(); logps, rewards = [], []
    for t in range(STEP):
        probs = torch.softmax(policy(s), -1)
        a = int(torch.multinomial(probs, 1, generator=g))
        logps.append(torch.log(probs[a]))
        s, r, done = env.step(a); rewards.append(r)
        if done:
            break
    R, vt = 0.0, []
    for r in reversed(rewards):
        R = r + GAMMA * R; vt.insert(0, R)
    vt = torch.tensor(vt); vt = (vt - vt.mean()) / (vt.std() + 1e-8) if len(vt) > 1 else vt * 0
    loss = -(torch.stack(logps) * vt).sum()
    opt.zero_grad(); loss.backward(); opt.step()
    if episode % 100 == 0:
        total = 0.0
        for _ in range(10):
            s = env.reset()
            for j in range(STEP):
                with torch.no_grad():
                    a = int(policy(s).argmax())
                s, r, done = env.step(a); total += r
                if done:
                    break
        print('episode: ', episode, 'Evaluation Average Reward:', total / 10)
