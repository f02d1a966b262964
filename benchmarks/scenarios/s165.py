# non-linear regression, MLP with a little dropout, MAE loss; train vs validation MAE per epoch
import csv
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

np.random.seed(12)
torch.manual_seed(12)
torch.set_num_threads(1)

n = 6000
X = np.random.uniform(-2, 2, (n, 6)).astype(np.float32)
y = (np.sin(2 * X[:, 0]) + X[:, 1] ** 2 - X[:, 2] * X[:, 3] + 0.5 * np.cos(3 * X[:, 4]) + 0.3 * X[:, 5]
     + np.random.normal(0, 0.1, n)).astype(np.float32).reshape(-1, 1)
Xtr, ytr, Xva, yva = X[:4800], y[:4800], X[4800:], y[4800:]
train_dl = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=32, shuffle=True)

model = nn.Sequential(nn.Linear(6, 128), nn.ReLU(), nn.Dropout(0.075),
                      nn.Linear(128, 128), nn.ReLU(), nn.Dropout(0.075),
                      nn.Linear(128, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
mae = nn.L1Loss()

history = {"loss": [], "val_loss": []}
for epoch in range(40):
    model.train()
    tot = 0.0
    for xb, yb in train_dl:
        loss = mae(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item() * len(xb)
    model.eval()
    with torch.no_grad():
        vl = mae(model(torch.from_numpy(Xva)), torch.from_numpy(yva)).item()
    history["loss"].append(tot / len(Xtr))
    history["val_loss"].append(vl)
    print("Epoch %d/40 - loss: %.4f - val_loss: %.4f" % (epoch + 1, tot / len(Xtr), vl))

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "train_loss", "val_loss"])
    for i, (a, b) in enumerate(zip(history["loss"], history["val_loss"])):
        w.writerow([i + 1, f"{a:.5f}", f"{b:.5f}"])
