import csv

import numpy as np
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(17)
rng = np.random.default_rng(17)

# 5-class problem: class decided by which of 5 random directions the point is closest to
N, D, C = 3000, 8, 5
directions = rng.normal(size=(C, D))
X = rng.normal(size=(N, D)).astype(np.float32)
Y = np.argmax(X @ directions.T + 0.3 * rng.normal(size=(N, C)), axis=1)

train_ds = TensorDataset(torch.from_numpy(X[:2400]), torch.from_numpy(Y[:2400]))
val_x, val_y = torch.from_numpy(X[2400:]), torch.from_numpy(Y[2400:])
loader = DataLoader(train_ds, batch_size=48, shuffle=True)

model = nn.Sequential(nn.Linear(D, 96), nn.ReLU(), nn.Linear(96, 96), nn.ReLU(), nn.Linear(96, C))
optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=1e-4)
scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
criterion = nn.CrossEntropyLoss()

csv_file = open("metrics.csv", "w", newline="")
writer = csv.writer(csv_file)
writer.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy", "lr"])
global_step = 0
for epoch in range(12):
    model.train()
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        scheduler.step()
        global_step += 1
        if global_step % 10 == 0:
            model.eval()
            with torch.no_grad():
                vout = model(val_x)
                vloss = criterion(vout, val_y).item()
                vacc = (vout.argmax(1) == val_y).float().mean().item()
            model.train()
            writer.writerow([global_step, epoch, f"{loss.item():.5f}", f"{vloss:.5f}", f"{vacc:.4f}",
                             f"{optimizer.param_groups[0]['lr']:.3e}"])
    print(f"epoch {epoch:2d}  loss {loss.item():.4f}  val_loss {vloss:.4f}  val_acc {vacc:.3f}  lr {scheduler.get_last_lr()[0]:.2e}")
csv_file.close()
