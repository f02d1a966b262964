"""Deep fully connected classifier (14 hidden layers) on 6 gaussian clusters."""
import csv

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(15)

N_CLASSES, DIM, DEPTH, WIDTH = 6, 16, 14, 64

means = torch.randn(N_CLASSES, DIM) * 1.5
labels = torch.randint(0, N_CLASSES, (3000,))
inputs = means[labels] + torch.randn(3000, DIM)

layers = [nn.Linear(DIM, WIDTH), nn.Sigmoid()]
for _ in range(DEPTH - 1):
    layers += [nn.Linear(WIDTH, WIDTH), nn.Sigmoid()]
layers.append(nn.Linear(WIDTH, N_CLASSES))
model = nn.Sequential(*layers)

loader = DataLoader(TensorDataset(inputs, labels), batch_size=50, shuffle=True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
criterion = nn.CrossEntropyLoss()

first_layer = model[0]
with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "loss", "accuracy", "grad_norm"])
    step = 0
    for epoch in range(6):
        for x, y in loader:
            optimizer.zero_grad()
            out = model(x)
            loss = criterion(out, y)
            loss.backward()
            total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
            optimizer.step()
            if step % 5 == 0:
                acc = (out.argmax(1) == y).float().mean().item()
                w.writerow([step, epoch, round(loss.item(), 5), round(acc, 4), f"{total_norm.item():.3e}"])
            step += 1
        print(f"epoch {epoch}  loss {loss.item():.4f}  first-layer grad {first_layer.weight.grad.norm():.2e}  total grad {total_norm:.2e}")
