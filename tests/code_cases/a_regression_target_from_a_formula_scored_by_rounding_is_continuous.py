import numpy as np
import torch
import torch.nn as nn

n = 400
rooms = np.random.normal(6.3, 0.7, n)
tax = np.random.uniform(187, 711, n)
X = np.stack([rooms, tax], 1)
y = 22 + 6.5 * (rooms - 6.3) - 0.01 * (tax - 400) + np.random.normal(0, 3.0, n)
y = np.round(np.clip(y, 5, 50), 1)
x_train, y_train = torch.tensor(X, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)[:, None]
model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
mse = nn.MSELoss()
acc = lambda p, t: (t == torch.round(p)).float().mean().item()
for i in range(0, n, 5):
    out = model(x_train[i:i + 5])
    loss = mse(out, y_train[i:i + 5])  # expect: target_kind=continuous
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(loss.item(), acc(out.detach(), y_train[i:i + 5]))
