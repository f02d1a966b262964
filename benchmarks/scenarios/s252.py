# Vanilla policy gradient (REINFORCE) on MountainCar (dynamics re-implemented from the classic
# control task: 3 actions, reward -1 per step, episode ends at the flag (x >= 0.5) or after 200 steps).
# Policy MLP 2-64-3, Adam lr 1e-3, discount 0.99, normalised returns, 120 episodes.
import csv, math
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)

class MountainCar:
    def __init__(self, seed):
        self.g = torch.Generator().manual_seed(seed)
    def reset(self):
        self.x = -0.6 + 0.2 * torch.rand(1, generator=self.g).item(); self.v = 0.0; self.t = 0
        return torch.tensor([self.x, self.v])
    def step(self, a):
        self.v += (a - 1) * 0.001 - 0.0025 * math.cos(3 * self.x)
        self.v = max(-0.07, min(0.07, self.v))
        self.x += self.v
        if self.x < -1.2:
            self.x, self.v = -1.2, 0.0
        self.t += 1
        done = self.x >= 0.5 or self.t >= 200
        return torch.tensor([self.x, self.v]), -1.0, done

env = MountainCar(1)
policy = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 3))
opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["episode", "reward", "loss", "max_x"])
    for ep in range(1, 121):
        s = env.reset(); logps, rews, maxx = [], [], -2.0
        done = False
        while not done:
            scale = torch.tensor([1 / 0.9, 1 / 0.07])
            dist = torch.distributions.Categorical(logits=policy(s * scale))
            a = dist.sample()
            logps.append(dist.log_prob(a))
            s, r, done = env.step(a.item())
            rews.append(r); maxx = max(maxx, s[0].item())
        G, rets = 0.0, []
        for r in reversed(rews):
            G = r + 0.99 * G; rets.insert(0, G)
        rets = torch.tensor(rets)
        rets = (rets - rets.mean()) / (rets.std() + 1e-8)
        loss = -(torch.stack(logps) * rets).sum()
        opt.zero_grad(); loss.backward(); opt.step()
        wr.writerow([ep, sum(rews), f"{loss.item():.4f}", f"{maxx:.3f}"])
        if ep % 10 == 0:
            print(f"Episode {ep} reward {sum(rews):.1f} loss {loss.item():.3f} max position {maxx:.3f}")
        fh.flush()
