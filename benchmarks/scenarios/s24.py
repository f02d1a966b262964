import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(24)
rng = np.random.default_rng(24)

# house-price style regression on standardized features
N, D = 5000, 14
X = rng.normal(size=(N, D)).astype(np.float32)
coef = rng.normal(size=D)
y = (X @ coef + 0.8 * np.tanh(X[:, 0] * X[:, 1]) + rng.normal(0, 0.3, N)).astype(np.float32)
y = (y - y.mean()) / y.std()

train = TensorDataset(torch.from_numpy(X[:4000]), torch.from_numpy(y[:4000]))
Xv, yv = torch.from_numpy(X[4000:]), torch.from_numpy(y[4000:])
loader = DataLoader(train, batch_size=64, shuffle=True)

model = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
mse = nn.MSELoss()
MAX_GRAD_NORM = 1e-3

fh = open("metrics.csv", "w", newline="")
log = csv.writer(fh)
log.writerow(["step", "epoch", "train_loss", "val_loss", "grad_norm", "lr"])
step = 0
for epoch in range(8):
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = mse(model(xb).squeeze(1), yb)
        loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=MAX_GRAD_NORM)
        optimizer.step()
        if step % 10 == 0:
            with torch.no_grad():
                vloss = mse(model(Xv).squeeze(1), yv).item()
            log.writerow([step, epoch, f"{loss.item():.5f}", f"{vloss:.5f}", f"{norm.item():.4f}", 0.01])
        step += 1
    print(f"epoch {epoch}: train_mse={loss.item():.4f} val_mse={vloss:.4f} grad_norm={norm.item():.3f}")
fh.close()
