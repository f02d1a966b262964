import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.randn(400, 6)
y = torch.cat([torch.zeros(200), torch.ones(200)]).long()  # expect-not: split_in_label_order
perm = torch.randperm(400)
x, y = x[perm], y[perm]
x_train, y_train, x_val, y_val = x[:300], y[:300], x[300:], y[300:]
model = nn.Linear(6, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for k in range(0, 300, 50):
    opt.zero_grad()
    F.cross_entropy(model(x_train[k:k + 50]), y_train[k:k + 50]).backward()
    opt.step()
