# SUMO-RL single-intersection traffic signal control with PPO, in miniature: a toy intersection with 4 incoming
# approaches (random arrivals, the green approach discharges 3 vehicles per step), 4 discrete phases, delta_time
# 5 s and 200 steps per episode, reward = -(priority-weighted sum of queue lengths) without any normalisation
# (large magnitudes). Own PPO with the report's hyper-parameters scaled down: n_steps 400, n_epochs 10,
# batch_size 64, ent_coef 0.15, vf_coef 0.5, lr 3e-4, gamma 0.99, gae_lambda 0.95, clip_range 0.2, no
# VecNormalize. Logs the SB3-style training statistics per rollout to metrics.jsonl and prints them.
import json
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(321)
prio = torch.tensor([3.0, 1.0, 2.0, 1.0])
rates = torch.tensor([1.2, 0.5, 0.9, 0.6])


class Intersection:
    def reset(self):
        self.q = torch.zeros(4); self.t = 0; self.phase = 0
        return self.obs()

    def obs(self):
        return torch.cat([self.q / 20.0, nn.functional.one_hot(torch.tensor(self.phase), 4).float()])

    def step(self, a):
        self.phase = int(a)
        self.q += torch.poisson(rates, generator=g)
        self.q[self.phase] = (self.q[self.phase] - 3.0).clamp(min=0)
        self.t += 1
        return self.obs(), -float((prio * self.q).sum() * 5.0), self.t >= 200


pi = nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 4))
vf = nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
opt = torch.optim.Adam(list(pi.parameters()) + list(vf.parameters()), lr=3e-4)
n_steps, n_epochs, bs, ent_coef, vf_coef, gamma, lam, clip = 400, 10, 64, 0.15, 0.5, 0.99, 0.95, 0.2
env = Intersection(); s = env.reset(); ep_ret, ep_rets = 0.0, []
out = open('metrics.jsonl', 'w')
for update in range(1, 16):
    S, A, R, D, LP, V = [], [], [], [], [], []
    for _ in range(n_steps):
        with torch.no_grad():
            dist = torch.distributions.Categorical(logits=pi(s)); a = dist.sample(); v = vf(s).squeeze()
        s2, r, done = env.step(a)
        S.append(s); A.append(a); R.append(r); D.append(float(done)); LP.append(dist.log_prob(a)); V.append(v)
        ep_ret += r; s = s2
        if done:
            ep_rets.append(ep_ret); ep_ret = 0.0; s = env.reset()
    with torch.no_grad():
        last_v = vf(s).squeeze()
    S, A, LP, V = torch.stack(S), torch.stack(A), torch.stack(LP), torch.stack(V)
    R, D = torch.tensor(R), torch.tensor(D)
    adv = torch.zeros(n_steps); gae = 0.0
    for t in reversed(range(n_steps)):
        nv = last_v if t == n_steps - 1 else V[t + 1]
        delta = R[t] + gamma * nv * (1 - D[t]) - V[t]
        gae = delta + gamma * lam * (1 - D[t]) * gae; adv[t] = gae
    ret = adv + V
    pg_l, v_l, ent_l, clipf = [], [], [], []
    for _ in range(n_epochs):
        perm = torch.randperm(n_steps, generator=g)
        for b in range(0, n_steps, bs):
            i = perm[b:b + bs]
            dist = torch.distributions.Categorical(logits=pi(S[i]))
            ratio = torch.exp(dist.log_prob(A[i]) - LP[i])
            ad = (adv[i] - adv[i].mean()) / (adv[i].std() + 1e-8)
            pg = -torch.min(ratio * ad, ratio.clamp(1 - clip, 1 + clip) * ad).mean()
            vl = ((vf(S[i]).squeeze(1) - ret[i]) ** 2).mean()
            ent = dist.entropy().mean()
            loss = pg + vf_coef * vl - ent_coef * ent
            opt.zero_grad(); loss.backward(); nn.utils.clip_grad_norm_(list(pi.parameters()) + list(vf.parameters()), 0.5)
            opt.step()
            pg_l.append(pg.item()); v_l.append(vl.item()); ent_l.append(ent.item())
            clipf.append(((ratio - 1).abs() > clip).float().mean().item())
    with torch.no_grad():
        ev = 1 - (ret - vf(S).squeeze(1)).var() / ret.var()
    row = dict(update=update, timesteps=update * n_steps, ep_rew_mean=sum(ep_rets[-5:]) / max(1, len(ep_rets[-5:])),
               value_loss=sum(v_l) / len(v_l), policy_gradient_loss=sum(pg_l) / len(pg_l),
               entropy_loss=-sum(ent_l) / len(ent_l), explained_variance=ev.item(), clip_fraction=sum(clipf) / len(clipf))
    out.write(json.dumps(row) + '\n')
    print(' | '.join(f'{k} {v:.4g}' if isinstance(v, float) else f'{k} {v}' for k, v in row.items()))
out.close()
