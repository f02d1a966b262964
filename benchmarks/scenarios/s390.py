# Dueling DQN on CartPole in miniature (test_gym/dueling_dqn.py style). The CartPole-v0 dynamics
# are re-implemented here so the script needs no gym install. No target network; epsilon-greedy
# with decay; replay buffer; Adam 3e-4; batch 32; gamma 0.99; 300 episodes, max 200 steps.
import math, random
from collections import deque
import numpy as np
import torch, torch.nn as nn

random.seed(0); np.random.seed(0); torch.manual_seed(0)
torch.set_num_threads(1)

class CartPoleEnv:
    def __init__(self):
        self.gravity, self.masscart, self.masspole = 9.8, 1.0, 0.1
        self.total_mass = self.masspole + self.masscart
        self.length = 0.5; self.polemass_length = self.masspole * self.length
        self.force_mag, self.tau = 10.0, 0.02
        self.theta_threshold_radians = 12 * 2 * math.pi / 360; self.x_threshold = 2.4
    def reset(self):
        self.state = np.random.uniform(-0.05, 0.05, 4); self.steps = 0
        return self.state.copy()
    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        ct, st = math.cos(theta), math.sin(theta)
        temp = (force + self.polemass_length * theta_dot ** 2 * st) / self.total_mass
        thetaacc = (self.gravity * st - ct * temp) / (self.length * (4.0 / 3.0 - self.masspole * ct ** 2 / self.total_mass))
        xacc = temp - self.polemass_length * thetaacc * ct / self.total_mass
        x += self.tau * x_dot; x_dot += self.tau * xacc
        theta += self.tau * theta_dot; theta_dot += self.tau * thetaacc
        self.state = np.array([x, x_dot, theta, theta_dot]); self.steps += 1
        done = bool(x < -self.x_threshold or x > self.x_threshold or
                    theta < -self.theta_threshold_radians or theta > self.theta_threshold_radians or
                    self.steps >= 200)
        return self.state.copy(), 1.0, done, {}

class DuelingDQN(nn.Module):
    def __init__(self, input_dim, output_dim):
        super().__init__()
        self.feauture_layer = nn.Sequential(nn.Linear(input_dim, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU())
        self.value_stream = nn.Sequential(nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 1))
        self.advantage_stream = nn.Sequential(nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, output_dim))
    def forward(self, state):
        f = self.feauture_layer(state)
        values = self.value_stream(f); advantages = self.advantage_stream(f)
        return values + (advantages - advantages.mean(dim=1, keepdim=True))

class BasicBuffer:
    def __init__(self, max_size): self.buffer = deque(maxlen=max_size)
    def push(self, s, a, r, s2, d): self.buffer.append((s, a, r, s2, d))
    def sample(self, n):
        batch = random.sample(self.buffer, n)
        s, a, r, s2, d = zip(*batch)
        return (torch.FloatTensor(np.array(s)), torch.LongTensor(a), torch.FloatTensor(r),
                torch.FloatTensor(np.array(s2)), torch.FloatTensor(d))
    def __len__(self): return len(self.buffer)

class DQNAgent:
    def __init__(self, env, learning_rate=3e-4, gamma=0.99, buffer_size=10000):
        self.env, self.gamma = env, gamma
        self.replay_buffer = BasicBuffer(buffer_size)
        self.model = DuelingDQN(4, 2)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=learning_rate)
        self.MSE_loss = nn.MSELoss(); self.eps = 1.0
    def get_action(self, state):
        if np.random.rand() < self.eps:
            return random.randint(0, 1)
        with torch.no_grad():
            qvals = self.model(torch.FloatTensor(state).unsqueeze(0))
        return int(qvals.argmax(1).item())
    def compute_loss(self, batch):
        states, actions, rewards, next_states, dones = batch
        curr_Q = self.model(states).gather(1, actions.unsqueeze(1)).squeeze(1)
        next_Q = self.model(next_states)
        max_next_Q = torch.max(next_Q, 1)[0]
        expected_Q = rewards + self.gamma * max_next_Q
        return self.MSE_loss(curr_Q, expected_Q.detach())
    def update(self, batch_size):
        loss = self.compute_loss(self.replay_buffer.sample(batch_size))
        self.optimizer.zero_grad(); loss.backward(); self.optimizer.step()
        return loss.item()

env = CartPoleEnv(); agent = DQNAgent(env)
MAX_EPISODES, MAX_STEPS, BATCH_SIZE = 300, 200, 32
episode_rewards = []; losses = []
for episode in range(MAX_EPISODES):
    state = env.reset(); episode_reward = 0
    for step in range(MAX_STEPS):
        action = agent.get_action(state)
        next_state, reward, done, _ = env.step(action)
        agent.replay_buffer.push(state, action, reward, next_state, done)
        episode_reward += reward
        if len(agent.replay_buffer) > BATCH_SIZE:
            losses.append(agent.update(BATCH_SIZE))
        if done or step == MAX_STEPS - 1:
            episode_rewards.append(episode_reward)
            break
        state = next_state
    agent.eps = max(0.01, agent.eps * 0.99)
    if episode % 20 == 19 or episode >= MAX_EPISODES - 3:
        q0 = agent.model(torch.FloatTensor(env.reset()).unsqueeze(0)).max().item()
        print("Episode {}: {}   (mean of last 20: {:.1f}, eps {:.3f}, loss {:.4g}, Q(s0) {:.4g})".format(
            episode, episode_reward, float(np.mean(episode_rewards[-20:])), agent.eps,
            float(np.mean(losses[-200:])) if losses else float('nan'), q0))
