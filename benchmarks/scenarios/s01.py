import csv
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
np.random.seed(0)

# ---- data: five gaussian clusters in 20-d ----------------------------------
N_CLASSES = 5
N_PER_CLASS = 400
DIM = 20

centers = np.random.randn(N_CLASSES, DIM) * 2.0
X = np.concatenate([c + np.random.randn(N_PER_CLASS, DIM) for c in centers]).astype(np.float32)
y = np.repeat(np.arange(N_CLASSES), N_PER_CLASS)
perm = np.random.permutation(len(X))
X, y = X[perm], y[perm]

train_ds = TensorDataset(torch.from_numpy(X), torch.from_numpy(y).long())
loader = DataLoader(train_ds, batch_size=64, shuffle=True)

# ---- model -----------------------------------------------------------------
model = nn.Sequential(
    nn.Linear(DIM, 128),
    nn.ReLU(),
    nn.Linear(128, 64),
    nn.ReLU(),
    nn.Linear(64, N_CLASSES),
)

lr = 1e-5
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
criterion = nn.CrossEntropyLoss()

EPOCHS = 10
log = open("metrics.csv", "w", newline="")
writer = csv.writer(log)
writer.writerow(["step", "epoch", "loss", "accuracy", "lr"])

step = 0
for epoch in range(EPOCHS):
    running, correct, seen = 0.0, 0, 0
    for xb, yb in loader:
        optimizer.zero_grad()
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()

        running += loss.item() * len(xb)
        correct += (logits.argmax(1) == yb).sum().item()
        seen += len(xb)
        if step % 10 == 0:
            writer.writerow([step, epoch, f"{loss.item():.5f}",
                             f"{(logits.argmax(1) == yb).float().mean().item():.4f}", lr])
        step += 1
    print(f"epoch {epoch+1}/{EPOCHS}  loss {running/seen:.4f}  acc {correct/seen:.3f}")

log.close()
print(f"done. chance-level loss would be {math.log(N_CLASSES):.4f}")
