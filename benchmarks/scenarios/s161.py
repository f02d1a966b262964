# Wide & Deep regression on California-housing-like data (8 numeric features)
import csv
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(42)
torch.set_num_threads(1)
rng = np.random.default_rng(42)


def load_housing(n):
    med_inc = rng.lognormal(1.3, 0.45, n)              # 0.5 .. 15
    house_age = rng.uniform(1, 52, n)
    ave_rooms = rng.normal(5.4, 1.2, n).clip(1, 12)
    ave_bedrms = rng.normal(1.1, 0.1, n).clip(0.5, 2)
    population = rng.lognormal(7.0, 0.7, n)             # ~100 .. 30000
    ave_occup = rng.normal(3.0, 0.8, n).clip(1, 8)
    lat = rng.uniform(32.5, 42.0, n)
    lon = -124.3 + (42.0 - lat) * 0.9 + rng.normal(0, 0.8, n)
    X = np.c_[med_inc, house_age, ave_rooms, ave_bedrms, population, ave_occup, lat, lon]
    coast = np.exp(-((lon + 122.2) ** 2 + (lat - 37.6) ** 2) / 4) + np.exp(-((lon + 118.3) ** 2 + (lat - 34.0) ** 2) / 3)
    y = 0.42 * med_inc + 0.012 * house_age + 1.4 * coast - 0.08 * ave_occup + 0.1 * np.sin(ave_rooms) \
        + rng.normal(0, 0.25, n)
    return X.astype(np.float32), y.clip(0.15, 5.0).astype(np.float32).reshape(-1, 1)


X_train, y_train = load_housing(11000)
X_valid, y_valid = load_housing(3000)
X_train, y_train = torch.from_numpy(X_train), torch.from_numpy(y_train)
X_valid, y_valid = torch.from_numpy(X_valid), torch.from_numpy(y_valid)


class WideAndDeep(nn.Module):
    def __init__(self, n_inputs):
        super().__init__()
        self.hidden1 = nn.Linear(n_inputs, 30)
        self.hidden2 = nn.Linear(30, 30)
        self.output = nn.Linear(30 + n_inputs, 1)

    def forward(self, x):
        h = torch.relu(self.hidden1(x))
        h = torch.relu(self.hidden2(h))
        return self.output(torch.cat([x, h], dim=1))


model = WideAndDeep(8)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
mse = nn.MSELoss()

hist = []
step = 0
for epoch in range(20):
    perm = torch.randperm(len(X_train))
    total = 0.0
    for i in range(0, len(X_train), 32):
        idx = perm[i:i + 32]
        loss = mse(model(X_train[idx]), y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(idx)
        step += 1
    with torch.no_grad():
        vl = mse(model(X_valid), y_valid).item()
        rmse = vl ** 0.5
    hist.append([step, epoch + 1, total / len(X_train), vl, rmse])
    print(f"Epoch {epoch+1}/20 - loss: {total/len(X_train):.4f} - val_loss: {vl:.4f} - val_rmse: {rmse:.4f}")

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "train_loss", "val_loss", "val_rmse"])
    w.writerows(hist)
