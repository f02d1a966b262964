import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(0)
S = rng.normal(size=(5000, 6)).astype("float32")
A = rng.normal(size=(5000, 2)).astype("float32")
R = rng.normal(size=(5000, 1)).astype("float32")
S2 = S + 0.1 * rng.normal(size=S.shape).astype("float32")
ND = (rng.random((5000, 1)) > 0.01).astype("float32")


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, s, a):
        return self.net(torch.cat([s, a], 1))


q, q_tgt = Critic(), Critic()
q_tgt.load_state_dict(q.state_dict())
opt = torch.optim.Adam(q.parameters(), lr=3e-4)
disc = 0.99
for it in range(200):
    i = rng.integers(0, 5000, 256)
    s, a, r, s2, not_done = (torch.from_numpy(x[i]) for x in (S, A, R, S2, ND))
    with torch.no_grad():
        y = r + not_done * disc * q_tgt(s2, a)  # expect: rl_training=True
    loss = F.mse_loss(q(s, a), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 50 == 0:
        print(f"it {it} q loss {loss.item():.4f}")
# expect-detail: rl_training: temporal-difference target
