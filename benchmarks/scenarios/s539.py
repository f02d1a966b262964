# openai/gym issue "Keras Q-learning model performance doesn't improve when playing CartPole" in miniature, ported from
# Keras to PyTorch: the poster's deep Q-learning on CartPole-v1 (Sequential Dense(128, relu) - Dense(64, relu) -
# Dense(2, linear), compiled with loss='mse' and Adam(), train_model(n_episodes=500, epsilon=0.5, decay_factor=0.999,
# lambda_=0.95), epsilon multiplied by decay_factor every episode). Each environment step is followed by one model.fit
# on that single transition, as in the adventuresinmachinelearning tutorial the poster follows: target = reward +
# lambda_ * max Q(new state), the target vector is the model's own prediction with the taken action's entry replaced,
# epochs=1; no replay memory, no target network, and the target is bootstrapped also at the terminal step. The return G
# of every episode is collected in G_array. The CartPole-v1 dynamics (gym's equations and constants, 500-step limit,
# reward 1 per step) are implemented in the script instead of importing gym. metrics.csv has one row per episode:
# return, epsilon, mean TD loss of the episode, and the running mean of the last 20 returns.
import csv, math
import numpy as np
import torch, torch.nn as nn

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)


class CartPoleEnv:
    """CartPole-v1 as in gym/envs/classic_control/cartpole.py (Euler integration)."""
    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    theta_threshold_radians = 12 * 2 * math.pi / 360
    x_threshold = 2.4
    max_episode_steps = 500

    def reset(self):
        self.state = np.random.uniform(low=-0.05, high=0.05, size=(4,))
        self.t = 0
        return np.array(self.state, dtype=np.float32)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        total_mass = self.masspole + self.masscart
        polemass_length = self.masspole * self.length
        costheta, sintheta = math.cos(theta), math.sin(theta)
        temp = (force + polemass_length * theta_dot ** 2 * sintheta) / total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * costheta ** 2 / total_mass))
        xacc = temp - polemass_length * thetaacc * costheta / total_mass
        x = x + self.tau * x_dot; x_dot = x_dot + self.tau * xacc
        theta = theta + self.tau * theta_dot; theta_dot = theta_dot + self.tau * thetaacc
        self.state = (x, x_dot, theta, theta_dot)
        self.t += 1
        done = bool(x < -self.x_threshold or x > self.x_threshold or theta < -self.theta_threshold_radians
                    or theta > self.theta_threshold_radians or self.t >= self.max_episode_steps)
        return np.array(self.state, dtype=np.float32), 1.0, done, {}


env = CartPoleEnv()
n_obs, n_actions = 4, 2

###make model
model = nn.Sequential(nn.Linear(n_obs, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, n_actions))
for m in model:
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight); nn.init.zeros_(m.bias)  # Keras Dense defaults
optimizer = torch.optim.Adam(model.parameters(), lr=0.001, eps=1e-7)  # Keras Adam() defaults
mse = nn.MSELoss()


def predict(obs):
    with torch.no_grad():
        return model(torch.from_numpy(obs)).numpy()


def fit(obs, target_vec):
    optimizer.zero_grad()
    loss = mse(model(torch.from_numpy(obs)), torch.from_numpy(target_vec))
    loss.backward(); optimizer.step()
    return loss.item()


###train model
def train_model(n_episodes=500, epsilon=0.5, decay_factor=0.999, lambda_=0.95):
    G_array = []
    f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
    wr.writerow(['episode', 'G', 'epsilon', 'mean_td_loss', 'mean_G_last20'])
    for episode in range(n_episodes):
        observation = env.reset()
        observation = observation.reshape(-1, n_obs)
        epsilon *= decay_factor
        done = False
        G = 0
        losses = []
        while not done:
            if np.random.random() < epsilon:
                action = np.random.randint(0, n_actions)
            else:
                action = int(np.argmax(predict(observation)))
            new_observation, reward, done, info = env.step(action)
            new_observation = new_observation.reshape(-1, n_obs)
            target = reward + lambda_ * np.max(predict(new_observation))
            target_vec = predict(observation)[0]
            target_vec[action] = target
            losses.append(fit(observation, target_vec.reshape(-1, n_actions).astype(np.float32)))
            observation = new_observation
            G += reward
        G_array.append(G)
        last = np.mean(G_array[-20:])
        wr.writerow([episode, int(G), round(epsilon, 4), round(float(np.mean(losses)), 5), round(float(last), 2)])
        if episode % 10 == 0 or episode == n_episodes - 1:
            print('Episode {} of {}  G: {:.0f}  mean G (last 20): {:.1f}  epsilon: {:.3f}  mean loss: {:.4f}'.format(
                episode, n_episodes, G, last, epsilon, np.mean(losses)), flush=True)
    f.close()
    return G_array


G_array = train_model()
print('mean G first 50 episodes: {:.1f}, last 50 episodes: {:.1f}, max G: {:.0f}'.format(
    np.mean(G_array[:50]), np.mean(G_array[-50:]), np.max(G_array)))
