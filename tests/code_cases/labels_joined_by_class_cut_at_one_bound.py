import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.randn(400, 6)
y = torch.cat([torch.full((200,), c) for c in range(2)])
n = 300
x_train, x_val = x[:n], x[n:]
y_train, y_val = y[:n], y[n:]  # expect: split_in_label_order=True
model = nn.Linear(6, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(5):
    perm = torch.randperm(n)
    for k in range(0, n, 50):
        i = perm[k:k + 50]
        opt.zero_grad()
        F.cross_entropy(model(x_train[i]), y_train[i]).backward()
        opt.step()
