# Dragon-Zhuang/BPPO issue "loss does not converge" in miniature: the Q-learning stage of BPPO (Behavior Proximal
# Policy Optimization, offline RL on D4RL): buffer.py loads the offline transitions (s, a, r, s', a', not_done),
# normalises the states with the data set's mean and std (normalize_state) and hands out minibatches; critic.py's
# QSarsaLearner fits Q(s, a) to r + gamma * not_done * Q_target(s', a') with an MLP, Adam, a soft-updated target
# network (tau 0.005), gamma 0.99, batch 512, and main.py prints the Q loss while it trains (value_steps / q_bc
# steps, every 200 steps here, "Step: %d, Q loss: %.4f"). As in the repository before the maintainer's fix, only
# the current state is normalised; the next state stays in raw units. A synthetic hopper-like offline data set
# (11-dim states with offsets and scales like the D4RL hopper observations, 3-dim actions from a noisy behaviour
# policy, 200-step episodes, 50 000 transitions, a smooth reward) replaces hopper-medium-v2, 256-unit networks and
# 3000 steps replace the repository's 1024 units and 2e6 steps.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
rs = np.random.RandomState(0)
S_DIM, A_DIM = 11, 3

# ---------------- synthetic offline data set (hopper-like scales)
OFF = np.array([1.25, 0.0, -0.2, -0.3, 0.1, 2.5, 0.0, 0.0, 0.0, 0.0, 0.0], np.float32)
SCL = np.array([0.15, 0.05, 0.15, 0.2, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], np.float32)
Amat = (np.eye(S_DIM) * 0.9 + rs.randn(S_DIM, S_DIM) * 0.03).astype(np.float32)
Bmat = (rs.randn(S_DIM, A_DIM) * 0.3).astype(np.float32)
K = (rs.randn(A_DIM, S_DIM) * 0.2).astype(np.float32)
def collect(n_ep=250, T=200):
    S, A, Rw, S2, A2, ND = [], [], [], [], [], []
    for _ in range(n_ep):
        z = rs.randn(S_DIM).astype(np.float32)
        a = np.tanh(K @ z + 0.3 * rs.randn(A_DIM)).astype(np.float32)
        for t in range(T):
            z2 = Amat @ z + Bmat @ a + 0.1 * rs.randn(S_DIM).astype(np.float32)
            a2 = np.tanh(K @ z2 + 0.3 * rs.randn(A_DIM)).astype(np.float32)
            s, s2 = OFF + SCL * z, OFF + SCL * z2                   # raw observation units
            r = 1.0 + 0.5 * np.tanh(z[5]) - 0.05 * float((a ** 2).sum())
            done = t == T - 1
            S.append(s); A.append(a); Rw.append(r); S2.append(s2); A2.append(a2); ND.append(0.0 if done else 1.0)
            z, a = z2, a2
    f = lambda v: np.array(v, np.float32)
    return f(S), f(A), f(Rw)[:, None], f(S2), f(A2), f(ND)[:, None]

# ---------------- buffer.py
class OfflineReplayBuffer:
    def __init__(self, data):
        self._state, self._action, self._reward, self._next_state, self._next_action, self._not_done = data
        self._size = len(self._state)
    def normalize_state(self):
        mean = self._state.mean(0, keepdims=True); std = self._state.std(0, keepdims=True) + 1e-3
        self._state = (self._state - mean) / std
        return mean, std
    def sample(self, batch_size):
        ind = rs.randint(0, self._size, batch_size)
        return tuple(torch.from_numpy(x[ind]) for x in (self._state, self._action, self._reward,
                                                       self._next_state, self._next_action, self._not_done))

# ---------------- critic.py
class QMLP(nn.Module):
    def __init__(self, hidden=256):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(S_DIM + A_DIM, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 1))
    def forward(self, s, a):
        return self.net(torch.cat([s, a], 1))

class QSarsaLearner:
    def __init__(self, lr=1e-4, gamma=0.99, tau=0.005):
        self._Q = QMLP(); self._target_Q = QMLP(); self._target_Q.load_state_dict(self._Q.state_dict())
        self._optimizer = torch.optim.Adam(self._Q.parameters(), lr=lr)
        self._gamma, self._tau = gamma, tau
    def update(self, replay_buffer, batch_size=512):
        s, a, r, s_p, a_p, not_done = replay_buffer.sample(batch_size)
        with torch.no_grad():
            target_Q_value = r + not_done * self._gamma * self._target_Q(s_p, a_p)
        Q = self._Q(s, a)
        loss = F.mse_loss(Q, target_Q_value)
        self._optimizer.zero_grad(); loss.backward(); self._optimizer.step()
        for p, tp in zip(self._Q.parameters(), self._target_Q.parameters()):
            tp.data.copy_(self._tau * p.data + (1 - self._tau) * tp.data)
        return loss.item(), Q.mean().item()

replay_buffer = OfflineReplayBuffer(collect())
s_mean, s_std = replay_buffer.normalize_state()
print('offline data set: %d transitions, state dim %d, action dim %d' % (replay_buffer._size, S_DIM, A_DIM))
Q_bc = QSarsaLearner()
wr = csv.writer(open('metrics.csv', 'w', newline=''))
wr.writerow(['step', 'q_loss', 'q_mean'])
acc = []
for step in range(1, 3001):
    q_loss, q_mean = Q_bc.update(replay_buffer)
    acc.append(q_loss)
    wr.writerow([step, '%.6f' % q_loss, '%.4f' % q_mean])
    if step % 200 == 0:
        print('Step: %d, Q loss: %.4f, Q mean: %.3f' % (step, float(np.mean(acc)), q_mean), flush=True)
        acc = []
