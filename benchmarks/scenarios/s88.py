"""Gearbox fault classification from 10 condition-monitoring features (4 fault classes)."""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(88)
rng = np.random.default_rng(88)

FAULTS = ["normal", "chipped_tooth", "bearing_wear", "misalignment"]
FEATURES = ["rms", "kurtosis", "crest", "skew", "gmf_1x", "gmf_2x", "sideband", "bpfo", "temp_delta", "oil_debris"]
D, K = len(FEATURES), len(FAULTS)

# simulated plant: fault likelihood depends non-linearly on the (standardised) readings
proj = rng.normal(size=(D, 16))
resp = rng.normal(size=(16, K))


def simulate(n):
    x = rng.normal(size=(n, D))
    score = 4.0 * np.tanh(x @ proj / np.sqrt(D)) @ resp
    p = np.exp(score - score.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    y = np.array([rng.choice(K, p=row) for row in p])
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


x_train, y_train = simulate(8000)
x_val, y_val = simulate(2000)
print("class counts (train):", torch.bincount(y_train, minlength=K).tolist())

model = nn.Sequential(
    nn.Linear(D, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, K),
)
lr = 0.5
batch_size = 16
epochs = 16
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
criterion = nn.CrossEntropyLoss()

f = open("metrics.csv", "w", newline="")
log = csv.writer(f)
log.writerow(["epoch", "train_loss", "val_loss", "val_acc"])
for epoch in range(1, epochs + 1):
    model.train()
    perm = torch.randperm(len(x_train))
    running, seen = 0.0, 0
    for i in range(0, len(perm), batch_size):
        idx = perm[i:i + batch_size]
        out = model(x_train[idx])
        loss = criterion(out, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item() * len(idx)
        seen += len(idx)

    model.eval()
    with torch.no_grad():
        val_out = model(x_val)
        val_loss = criterion(val_out, y_val).item()
        val_acc = (val_out.argmax(1) == y_val).float().mean().item()
    train_loss = running / seen
    log.writerow([epoch, f"{train_loss:.4f}", f"{val_loss:.4f}", f"{val_acc:.4f}"])
    f.flush()
    print(f"epoch {epoch:2d}  train_loss {train_loss:.4f}  val_loss {val_loss:.4f}  val_acc {val_acc:.4f}")
f.close()
