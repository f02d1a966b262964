# REINFORCE agent for CartPole-v1 (rlcode-style: 24-24 policy net, lr 0.001, gamma 0.99,
# -100 reward when the pole falls before 499 steps, update once per episode)
import csv
import math
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)
torch.set_num_threads(1)

class CartPoleEnv:
    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    def __init__(self, seed=0):
        self.rng = np.random.RandomState(seed)
    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, 4)
        self.t = 0
        return self.state.copy()
    def step(self, action):
        x, x_dot, th, th_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        total_mass = self.masspole + self.masscart
        pml = self.masspole * self.length
        ct, st = math.cos(th), math.sin(th)
        temp = (force + pml * th_dot ** 2 * st) / total_mass
        thacc = (self.gravity * st - ct * temp) / (self.length * (4.0 / 3.0 - self.masspole * ct ** 2 / total_mass))
        xacc = temp - pml * thacc * ct / total_mass
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * xacc
        th, th_dot = th + self.tau * th_dot, th_dot + self.tau * thacc
        self.state = np.array([x, x_dot, th, th_dot])
        self.t += 1
        done = abs(x) > 2.4 or abs(th) > 12 * 2 * math.pi / 360 or self.t >= 500
        return self.state.copy(), 1.0, done

class REINFORCEAgent:
    def __init__(self, state_size, action_size):
        self.discount_factor = 0.99
        self.learning_rate = 0.001
        self.model = nn.Sequential(nn.Linear(state_size, 24), nn.ReLU(), nn.Linear(24, 24), nn.ReLU(),
                                   nn.Linear(24, action_size), nn.Softmax(dim=-1))
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=self.learning_rate)
        self.states, self.actions, self.rewards = [], [], []
    def get_action(self, state):
        with torch.no_grad():
            policy = self.model(torch.tensor(state, dtype=torch.float32)).numpy()
        return np.random.choice(2, 1, p=policy / policy.sum())[0]
    def discount_rewards(self, rewards):
        discounted = np.zeros_like(rewards)
        running_add = 0
        for t in reversed(range(0, len(rewards))):
            running_add = running_add * self.discount_factor + rewards[t]
            discounted[t] = running_add
        return discounted
    def append_sample(self, state, action, reward):
        self.states.append(state); self.rewards.append(reward); self.actions.append(action)
    def train_model(self):
        d = self.discount_rewards(np.array(self.rewards, dtype=np.float64))
        d -= np.mean(d)
        d /= np.std(d) + 1e-8
        probs = self.model(torch.tensor(np.array(self.states), dtype=torch.float32))
        a = torch.tensor(self.actions)
        logp = torch.log(probs.gather(1, a.unsqueeze(1)).squeeze(1) + 1e-10)
        loss = -(logp * torch.tensor(d, dtype=torch.float32)).sum()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.states, self.actions, self.rewards = [], [], []
        return loss.item()

env = CartPoleEnv()
agent = REINFORCEAgent(4, 2)
scores = []
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["episode", "score", "avg_score_10", "loss"])
    for e in range(500):
        done, score = False, 0
        state = env.reset()
        while not done:
            action = agent.get_action(state)
            next_state, reward, done = env.step(action)
            reward = reward if not done or score == 499 else -100
            agent.append_sample(state, action, reward)
            score += reward
            state = next_state
        loss = agent.train_model()
        score = score if score == 500 else score + 100
        scores.append(score)
        w.writerow([e, f"{score:.0f}", f"{np.mean(scores[-10:]):.1f}", f"{loss:.4f}"])
        fh.flush()
        if e % 10 == 0:
            print("episode:", e, "  score:", score)
