import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 3))
criterion = nn.CrossEntropyLoss()
x = torch.randn(512, 16)
y = torch.randint(0, 3, (512,))
lr = 0.1
for epoch in range(20):
    model.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad

# expect-not: params_not_in_optimizer
