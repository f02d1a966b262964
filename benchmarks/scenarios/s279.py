# DQN on CartPole in miniature (the tutorial's DQN: 2-layer Q-net with 50 hidden units, epsilon 0.9
# greedy, target net replaced every 100 learning steps, replay memory 2000, batch 32, lr 0.01,
# gamma 0.9) with the tutorial's shaped reward r = r1 + r2 built from cart position and pole angle,
# on a re-implemented CartPole (no gym). The printed Ep_r is the sum of the shaped rewards.
import math
import random
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
random.seed(0); np.random.seed(0)

class CartPole:
    x_threshold, theta_threshold = 2.4, 12 * 2 * math.pi / 360
    def reset(self):
        self.s = np.random.uniform(-0.05, 0.05, 4); self.t = 0
        return self.s.copy()
    def step(self, a):
        x, xd, th, thd = self.s
        f = 10.0 if a == 1 else -10.0
        ct, st = math.cos(th), math.sin(th)
        temp = (f + 0.05 * thd ** 2 * st) / 1.1
        tha = (9.8 * st - ct * temp) / (0.5 * (4.0 / 3.0 - 0.1 * ct ** 2 / 1.1))
        xa = temp - 0.05 * tha * ct / 1.1
        x, xd, th, thd = x + 0.02 * xd, xd + 0.02 * xa, th + 0.02 * thd, thd + 0.02 * tha
        self.s = np.array([x, xd, th, thd]); self.t += 1
        done = abs(x) > self.x_threshold or abs(th) > self.theta_threshold or self.t >= 500
        return self.s.copy(), 1.0, done

BATCH_SIZE, LR, EPSILON, GAMMA, TARGET_REPLACE_ITER, MEMORY_CAPACITY = 32, 0.01, 0.9, 0.9, 100, 2000
N_ACTIONS, N_STATES = 2, 4
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(N_STATES, 50); self.fc1.weight.data.normal_(0, 0.1)
        self.out = nn.Linear(50, N_ACTIONS); self.out.weight.data.normal_(0, 0.1)
    def forward(self, x):
        return self.out(torch.relu(self.fc1(x)))

class DQN:
    def __init__(self):
        self.eval_net, self.target_net = Net(), Net()
        self.learn_step_counter = 0; self.memory_counter = 0
        self.memory = np.zeros((MEMORY_CAPACITY, N_STATES * 2 + 2))
        self.optimizer = torch.optim.Adam(self.eval_net.parameters(), lr=LR)
        self.loss_func = nn.MSELoss()
    def choose_action(self, x):
        x = torch.unsqueeze(torch.FloatTensor(x), 0)
        if np.random.uniform() < EPSILON:
            return int(torch.max(self.eval_net(x), 1)[1].item())
        return np.random.randint(0, N_ACTIONS)
    def store_transition(self, s, a, r, s_):
        self.memory[self.memory_counter % MEMORY_CAPACITY, :] = np.hstack((s, [a, r], s_)); self.memory_counter += 1
    def learn(self):
        if self.learn_step_counter % TARGET_REPLACE_ITER == 0:
            self.target_net.load_state_dict(self.eval_net.state_dict())
        self.learn_step_counter += 1
        b = self.memory[np.random.choice(MEMORY_CAPACITY, BATCH_SIZE)]
        b_s = torch.FloatTensor(b[:, :N_STATES]); b_a = torch.LongTensor(b[:, N_STATES:N_STATES + 1].astype(int))
        b_r = torch.FloatTensor(b[:, N_STATES + 1:N_STATES + 2]); b_s_ = torch.FloatTensor(b[:, -N_STATES:])
        q_eval = self.eval_net(b_s).gather(1, b_a)
        q_target = b_r + GAMMA * self.target_net(b_s_).detach().max(1)[0].view(BATCH_SIZE, 1)
        loss = self.loss_func(q_eval, q_target)
        self.optimizer.zero_grad(); loss.backward(); self.optimizer.step()

env = CartPole(); dqn = DQN()
print('\nCollecting experience...')
for i_episode in range(130):
    s = env.reset(); ep_r = 0
    while True:
        a = dqn.choose_action(s)
        s_, r, done = env.step(a)
        x, x_dot, theta, theta_dot = s_
        r1 = (env.x_threshold - abs(x)) / env.x_threshold - 0.8
        r2 = (env.theta_threshold - abs(theta)) / env.theta_threshold - 0.5
        r = r1 + r2
        dqn.store_transition(s, a, r, s_)
        ep_r += r
        if dqn.memory_counter > MEMORY_CAPACITY:
            dqn.learn()
        if done:
            if i_episode % 5 == 0 or dqn.memory_counter > MEMORY_CAPACITY:
                print('Episode: {} | Ep_r: {} | steps: {}'.format(i_episode, round(ep_r, 2), env.t))
            break
        s = s_
