# tensorflow-reinforce style DDPG on a TORCS-like lane-keeping task in miniature: state = (track position,
# angle to the track axis, speed, 3 range sensors), action = (steer, accel, brake) from a tanh actor,
# critic Q(s, a), replay buffer, soft target updates (tau 0.001), Ornstein-Uhlenbeck exploration noise,
# actor lr 1e-4, critic lr 1e-3, reward = speed * (cos(angle) - |sin(angle)| - |trackPos|). Prints the same
# debug lines as the report (Action / Rewards / Policy out) every 10 episodes and the episode return;
# writes metrics.jsonl.
import copy
import json
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(309)


class LaneEnv:
    def reset(self):
        self.pos = float(torch.randn(1, generator=g)) * 0.1
        self.ang = float(torch.randn(1, generator=g)) * 0.05
        self.v = 0.2; self.t = 0; self.curv = 0.0
        return self.obs()

    def obs(self):
        return torch.tensor([self.pos, self.ang, self.v, 1 - self.pos, 1 + self.pos, math.cos(self.ang)])

    def step(self, a):
        steer, acc, brake = [float(u) for u in a]
        self.curv = 0.9 * self.curv + 0.1 * float(torch.randn(1, generator=g)) * 0.05
        self.v = min(3.0, max(0.0, self.v + 0.05 * max(acc, 0) - 0.08 * max(brake, 0) - 0.01))
        self.ang += 0.1 * steer * self.v - self.curv * self.v
        self.pos += 0.1 * self.v * math.sin(self.ang)
        self.t += 1
        r = self.v * (math.cos(self.ang) - abs(math.sin(self.ang)) - abs(self.pos))
        done = abs(self.pos) > 1.0 or self.t >= 120
        if abs(self.pos) > 1.0:
            r -= 1.0
        return self.obs(), r, done


actor = nn.Sequential(nn.Linear(6, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3), nn.Tanh())
critic = nn.Sequential(nn.Linear(9, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
actor_t, critic_t = copy.deepcopy(actor), copy.deepcopy(critic)
aopt = torch.optim.Adam(actor.parameters(), lr=1e-4)
copt = torch.optim.Adam(critic.parameters(), lr=1e-3)
buf = []
env = LaneEnv()
out = open('metrics.jsonl', 'w')
noise = torch.zeros(3)
for ep in range(1, 61):
    s = env.reset(); ret = 0.0; noise.zero_()
    while True:
        with torch.no_grad():
            a = actor(s)
        noise += 0.15 * (0.0 - noise) + 0.2 * torch.randn(3, generator=g)
        a_n = (a + noise).clamp(-1, 1)
        s2, r, done = env.step(a_n)
        buf.append((s, a_n, r, s2, float(done))); buf = buf[-20000:]
        s = s2; ret += r
        if len(buf) >= 64:
            ix = torch.randint(0, len(buf), (64,), generator=g)
            S = torch.stack([buf[i][0] for i in ix]); A = torch.stack([buf[i][1] for i in ix])
            R = torch.tensor([[buf[i][2]] for i in ix]); S2 = torch.stack([buf[i][3] for i in ix])
            D = torch.tensor([[buf[i][4]] for i in ix])
            with torch.no_grad():
                y = R + 0.99 * (1 - D) * critic_t(torch.cat([S2, actor_t(S2)], 1))
            q = critic(torch.cat([S, A], 1))
            closs = ((q - y) ** 2).mean()
            copt.zero_grad(); closs.backward(); copt.step()
            aloss = -critic(torch.cat([S, actor(S)], 1)).mean()
            aopt.zero_grad(); aloss.backward(); aopt.step()
            with torch.no_grad():
                for p, pt in zip(list(actor.parameters()) + list(critic.parameters()),
                                 list(actor_t.parameters()) + list(critic_t.parameters())):
                    pt.mul_(0.999).add_(0.001 * p)
        if done:
            break
    with torch.no_grad():
        test_s = torch.stack([buf[-k][0] for k in (1, 5, 9, 13)])
        pol = actor(test_s)
    out.write(json.dumps(dict(episode=ep, ret=ret, steps=env.t, mean_abs_policy=pol.abs().mean().item())) + '\n')
    print(f'Episode {ep}: return {ret:.2f} steps {env.t}')
    if ep % 10 == 0:
        print('Action: ', [round(float(u), 4) for u in a_n])
        print('Rewards: ', round(r, 4))
        print('Policy out: ', [[round(float(u), 5) for u in row] for row in pol])
out.close()
