"""Inverse kinematics for a 2-link planar arm with a mixture density network.

Given the gripper position (x, y), predict the shoulder angle. Each reachable point has
two solutions (elbow up / elbow down), so a plain regressor would average them; the MDN
models p(theta1 | x, y) as a mixture of Gaussians instead.
"""
import csv
import math

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(111)
rng = np.random.default_rng(111)

L1, L2 = 1.0, 0.8
K = 4                      # mixture components
EPOCHS = 15
BATCH = 64
LR = 3e-3


def sample_arm(n):
    th1 = rng.uniform(-np.pi / 2, np.pi / 2, n)
    th2 = rng.uniform(0.3, 2.6, n) * rng.choice([-1.0, 1.0], n)
    px = L1 * np.cos(th1) + L2 * np.cos(th1 + th2)
    py = L1 * np.sin(th1) + L2 * np.sin(th1 + th2)
    # joint encoder readings: fine resolution, heavy-ish tails
    th1_meas = th1 + 0.002 * rng.standard_t(2, n)
    X = np.column_stack([px, py]).astype(np.float32)
    return torch.from_numpy(X), torch.from_numpy(th1_meas.astype(np.float32)).unsqueeze(1)


class MDN(nn.Module):
    def __init__(self, n_in=2, hidden=64, k=K):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_in, hidden), nn.Tanh(),
                                  nn.Linear(hidden, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, k)
        self.mu = nn.Linear(hidden, k)
        self.log_sigma = nn.Linear(hidden, k)

    def forward(self, x):
        h = self.body(x)
        pi = torch.softmax(self.pi(h), dim=1)
        mu = self.mu(h)
        sigma = torch.exp(self.log_sigma(h))
        return pi, mu, sigma


def gaussian(y, mu, sigma):
    return torch.exp(-0.5 * ((y - mu) / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi))


def mdn_nll(pi, mu, sigma, y):
    likelihood = (pi * gaussian(y, mu, sigma)).sum(dim=1)
    return -torch.log(likelihood).mean()


def best_branch_error(pi, mu, y):
    # error of the component mean closest to the truth (either elbow solution is valid)
    return (mu - y).abs().min(dim=1).values.mean().item()


x_train, y_train = sample_arm(6000)
x_val, y_val = sample_arm(1500)

model = MDN()
opt = torch.optim.Adam(model.parameters(), lr=LR)

with open("metrics.csv", "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["step", "epoch", "train_nll", "val_nll", "val_branch_mae", "mean_sigma"])
    step = 0
    for epoch in range(EPOCHS):
        perm = torch.randperm(len(x_train))
        model.train()
        for i in range(0, len(perm), BATCH):
            idx = perm[i:i + BATCH]
            pi, mu, sigma = model(x_train[idx])
            loss = mdn_nll(pi, mu, sigma, y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 50 == 0:
                model.eval()
                with torch.no_grad():
                    vpi, vmu, vsig = model(x_val)
                    val_nll = mdn_nll(vpi, vmu, vsig, y_val).item()
                    mae = best_branch_error(vpi, vmu, y_val)
                    msig = (vpi * vsig).sum(1).mean().item()
                model.train()
                writer.writerow([step, epoch, f"{loss.item():.4f}", f"{val_nll:.4f}",
                                 f"{mae:.4f}", f"{msig:.4f}"])
                print(f"step {step:4d} ep {epoch:2d}  train nll {loss.item():8.4f}  val nll {val_nll:8.4f}"
                      f"  branch mae {mae:.4f}  sigma {msig:.4f}")
