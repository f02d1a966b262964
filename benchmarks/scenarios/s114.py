"""Early sepsis warning from hourly ICU vital-sign / lab snapshots.

Each row is one hourly snapshot; the label is whether the patient went on to meet sepsis
criteria during the stay.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(114)
rng = np.random.default_rng(114)

COLUMNS = ["hr", "sbp", "dbp", "map", "resp", "temp", "spo2", "wbc", "lactate", "creat",
           "bili", "platelets", "glucose", "age", "bmi", "gcs"]
N_PATIENTS, HOURS = 320, 12


def load_icu_extract():
    """Simulated warehouse extract: one row per patient-hour."""
    d = len(COLUMNS)
    risk_dir = rng.normal(0, 1, d)
    risk_dir /= np.linalg.norm(risk_dir)
    rows, labels, pids = [], [], []
    for pid in range(N_PATIENTS):
        baseline = rng.normal(0, 1, d)
        risk = 0.9 * baseline @ risk_dir + rng.normal(0, 1.0)
        sepsis = int(risk > 0.3)
        drift = rng.normal(0, 0.03, d)
        for h in range(HOURS):
            rows.append(baseline + drift * h + rng.normal(0, 0.15, d))
            labels.append(sepsis)
            pids.append(pid)
    return np.array(rows, np.float32), np.array(labels), np.array(pids)


X, y, patient_id = load_icu_extract()
print(f"{len(X)} snapshots from {len(np.unique(patient_id))} patients, sepsis rate {y.mean():.2f}")

X = (X - X.mean(0)) / X.std(0)
full = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
n_val = int(0.2 * len(full))
train_ds, val_ds = random_split(full, [len(full) - n_val, n_val],
                                generator=torch.Generator().manual_seed(0))
train_loader = DataLoader(train_ds, batch_size=64, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=256)

model = nn.Sequential(
    nn.Linear(len(COLUMNS), 128), nn.ReLU(),
    nn.Linear(128, 128), nn.ReLU(),
    nn.Linear(128, 2),
)
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()


def run_epoch(loader, train):
    model.train(train)
    total, correct, n = 0.0, 0, 0
    with torch.set_grad_enabled(train):
        for xb, yb in loader:
            logits = model(xb)
            loss = criterion(logits, yb)
            if train:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total += loss.item() * len(yb)
            correct += (logits.argmax(1) == yb).sum().item()
            n += len(yb)
    return total / n, correct / n


with open("metrics.csv", "w", newline="") as fh:
    out = csv.writer(fh)
    out.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
    for epoch in range(10):
        tr_loss, tr_acc = run_epoch(train_loader, True)
        va_loss, va_acc = run_epoch(val_loader, False)
        out.writerow([epoch + 1, f"{tr_loss:.4f}", f"{tr_acc:.4f}", f"{va_loss:.4f}", f"{va_acc:.4f}"])
        print(f"epoch {epoch + 1:2d}  train {tr_loss:.4f}/{tr_acc:.3f}  val {va_loss:.4f}/{va_acc:.3f}")
