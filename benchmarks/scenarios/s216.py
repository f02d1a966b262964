# Multi-output linear regression on well-mixed synthetic data, RMSprop, DataLoader(shuffle=True)
import csv
import numpy as np
import torch
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
num_sample = 1000
num_feat = 10
num_out = 10

np.random.seed(1923)
torch.manual_seed(1923)

X = np.random.normal(0, 0.5, (num_sample, num_feat)).astype(np.float32)
W = np.random.normal(0, 0.5, (num_feat, num_out)).astype(np.float32)
b = np.random.normal(0, 0.5, (1, num_out)).astype(np.float32)
y_mean = np.dot(X, W) + b
Y = np.random.normal(y_mean, 0.5)

model = torch.nn.Sequential(torch.nn.Linear(num_feat, num_out))
loss = torch.nn.MSELoss()
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)

full_data = TensorDataset(torch.from_numpy(X).float(), torch.from_numpy(Y).float())

print('\n##  With shuffle\n')
loader = DataLoader(full_data, batch_size=16, shuffle=True)
hist1 = []
step = 0
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "batch_loss", "epoch_loss"])
    for i in range(300):
        ep = []
        for j, (inp, target) in enumerate(loader):
            res = model(inp)
            l = loss(res, target)
            optimizer.zero_grad()
            l.backward()
            optimizer.step()
            step += 1
            ep.append(l.item())
            if j % 8 == 0:
                wr.writerow([step, i, f"{l.item():.5f}", ""])
        hist1.append(np.mean(ep))
        wr.writerow([step, i, f"{l.item():.5f}", f"{hist1[-1]:.5f}"])
        if i % 20 == 0 or i == 299:
            print(f"epoch {i}: train error {hist1[-1]:.5f}")
