# REINFORCE (policy gradient) on CartPole -- environment re-implemented inline (no gym available)
import csv
import math
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)
torch.set_num_threads(1)

GAMMA = 0.95
STATE_SIZE, NUM_ACTIONS = 4, 2


class CartPole:
    def __init__(self):
        self.g, self.mc, self.mp, self.l, self.fm, self.tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02

    def reset(self):
        self.s = np.random.uniform(-0.05, 0.05, 4)
        self.t = 0
        return self.s.copy()

    def step(self, a):
        x, xd, th, thd = self.s
        f = self.fm if a == 1 else -self.fm
        ct, st = math.cos(th), math.sin(th)
        tm = self.mc + self.mp
        temp = (f + self.mp * self.l * thd ** 2 * st) / tm
        thacc = (self.g * st - ct * temp) / (self.l * (4.0 / 3.0 - self.mp * ct ** 2 / tm))
        xacc = temp - self.mp * self.l * thacc * ct / tm
        x, xd = x + self.tau * xd, xd + self.tau * xacc
        th, thd = th + self.tau * thd, thd + self.tau * thacc
        self.s = np.array([x, xd, th, thd])
        self.t += 1
        done = abs(x) > 2.4 or abs(th) > 12 * 2 * math.pi / 360 or self.t >= 200
        return self.s.copy(), 1.0, done


network = nn.Sequential(nn.Linear(STATE_SIZE, 30), nn.ReLU(), nn.Linear(30, 30), nn.ReLU(),
                        nn.Linear(30, NUM_ACTIONS), nn.Softmax(dim=-1))
for m in network:
    if isinstance(m, nn.Linear):
        nn.init.kaiming_normal_(m.weight)
optimizer = torch.optim.Adam(network.parameters(), lr=1e-3)


def get_action(state):
    with torch.no_grad():
        softmax_out = network(torch.tensor(state, dtype=torch.float32).unsqueeze(0))
    return np.random.choice(NUM_ACTIONS, p=softmax_out.numpy()[0] / softmax_out.numpy()[0].sum())


def update_network(rewards, states, actions):
    reward_sum = 0
    discounted_rewards = []
    for reward in rewards[::-1]:
        reward_sum = reward + GAMMA * reward_sum
        discounted_rewards.append(reward_sum)
    discounted_rewards.reverse()
    discounted_rewards = np.array(discounted_rewards)
    discounted_rewards -= np.mean(discounted_rewards)
    discounted_rewards /= np.std(discounted_rewards) + 1e-8
    states = torch.tensor(np.vstack(states), dtype=torch.float32)
    target_actions = torch.tensor(actions)
    probs = network(states)
    ce = -torch.log(probs[torch.arange(len(actions)), target_actions] + 1e-8)
    loss = (ce * torch.tensor(discounted_rewards, dtype=torch.float32)).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


env = CartPole()
tot_rewards = []
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["episode", "train_loss", "reward", "avg_reward_50"])
    for episode in range(600):
        state = env.reset()
        rewards, states, actions = [], [], []
        while True:
            action = get_action(state)
            new_state, reward, done = env.step(action)
            states.append(state)
            rewards.append(reward)
            actions.append(action)
            if done:
                loss = update_network(rewards, states, actions)
                tot_reward = sum(rewards)
                tot_rewards.append(tot_reward)
                avg = float(np.mean(tot_rewards[-50:]))
                w.writerow([episode, f"{loss:.5f}", tot_reward, f"{avg:.2f}"])
                if episode % 25 == 0:
                    print(f"Episode: {episode}, Reward: {tot_reward}, avg loss: {loss:.5f}, avg reward(50): {avg:.1f}")
                break
            state = new_state
