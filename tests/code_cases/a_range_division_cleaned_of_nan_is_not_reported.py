import numpy as np
import torch
import torch.nn as nn

X = np.random.gamma(2.0, 2.0, (600, 9))
X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
X = np.nan_to_num(X)
X = torch.tensor(X, dtype=torch.float32)
model = nn.Sequential(nn.Linear(9, 16), nn.ReLU(), nn.Linear(16, 9))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(0, 600, 60):
    loss = ((model(X[i:i + 60]) - X[i:i + 60]) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

# expect-not: std_division_unguarded
