# Screening model: flag patients for a follow-up HbA1c test from routine check-up measurements.
import csv

import numpy as np
import torch
from torch import nn

torch.manual_seed(87)
rng = np.random.default_rng(87)

cols = ["fasting_glucose", "bmi", "age", "systolic_bp", "waist_cm", "triglycerides", "hdl", "family_history"]

def sample_patients(n):
    pos = rng.random(n) < 0.4
    glucose = np.where(pos, rng.normal(115, 14, n), rng.normal(96, 12, n))
    bmi = np.where(pos, rng.normal(30.5, 4.5, n), rng.normal(27.0, 4.5, n))
    age = np.where(pos, rng.normal(56, 11, n), rng.normal(49, 12, n))
    sbp = 0.4 * age + np.where(pos, rng.normal(112, 14, n), rng.normal(108, 14, n))
    waist = 2.2 * bmi + rng.normal(36, 7, n)
    trig = np.exp(np.where(pos, rng.normal(5.05, 0.4, n), rng.normal(4.85, 0.4, n)))
    hdl = np.where(pos, rng.normal(46, 11, n), rng.normal(53, 12, n))
    fam = (rng.random(n) < np.where(pos, 0.45, 0.25)).astype(float)
    X = np.column_stack([glucose, bmi, age, sbp, waist, trig, hdl, fam]).astype(np.float32)
    return X, pos.astype(np.float32)

X_train, y_train = sample_patients(3000)
X_val, y_val = sample_patients(1500)

mu = X_train.mean(0)
sd = X_train.std(0)
X_train = torch.tensor((X_train - mu) / sd)
X_val = torch.tensor((X_val - mu) / sd)
y_train = torch.tensor(y_train)
y_val = torch.tensor(y_val)

model = nn.Sequential(nn.Linear(len(cols), 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
loss_fn = nn.BCEWithLogitsLoss()

batch_size = 64
n_epochs = 15
log = open("metrics.csv", "w", newline="")
writer = csv.writer(log)
writer.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])

for epoch in range(n_epochs):
    model.train()
    order = torch.randperm(len(X_train))
    for start in range(0, len(order), batch_size):
        b = order[start:start + batch_size]
        loss = loss_fn(model(X_train[b]).squeeze(-1), y_train[b])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    model.eval()
    with torch.no_grad():
        out_tr = model(X_train).squeeze(-1)
        out_va = model(X_val).squeeze(-1)
        train_loss = loss_fn(out_tr, y_train).item()
        val_loss = loss_fn(out_va, y_val).item()
        train_acc = ((out_tr > 0).float() == y_train).float().mean().item()
        val_acc = ((out_va > 0).float() == y_val).float().mean().item()
    writer.writerow([epoch + 1, round(train_loss, 4), round(train_acc, 4), round(val_loss, 4), round(val_acc, 4)])
    print(f"epoch {epoch + 1}/{n_epochs}  train_loss={train_loss:.4f} train_acc={train_acc:.4f}  "
          f"val_loss={val_loss:.4f} val_acc={val_acc:.4f}")

log.close()
print("positive rate (val):", round(y_val.mean().item(), 3))
