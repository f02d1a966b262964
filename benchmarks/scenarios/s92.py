"""Rooftop HVAC unit fault classifier trained on technician-labelled telemetry snapshots.

Training data: five monthly exports. Jan-Feb use the legacy export (one row per snapshot with
the label inline); from March the BMS exports readings and work-order labels as two files.
Validation: the audited hold-out set prepared by the controls team.
"""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(92)
rng = np.random.default_rng(92)

STATES = ["normal", "stuck_damper", "low_refrigerant", "fouled_coil", "sensor_drift"]
SIGNALS = ["supply_t", "return_t", "mixed_t", "outdoor_t", "damper_pos", "fan_kw",
           "comp_kw", "suction_p", "discharge_p", "coil_dT"]

# how each fault shifts the (standardised) telemetry
SIGNATURE = rng.normal(0, 1.6, (len(STATES), len(SIGNALS)))
SIGNATURE[0] = 0.0


def snapshot(state):
    x = rng.normal(0, 1, len(SIGNALS)) + SIGNATURE[state] * rng.uniform(0.6, 1.4)
    x[9] += 0.4 * x[0] * x[3]                       # coil dT depends on supply/outdoor interaction
    return x


def legacy_export(n, month):
    rows = []
    for _ in range(n):
        state = int(rng.integers(len(STATES)))
        rows.append({"ts": month * 1e6 + rng.uniform(0, 1e6), "values": snapshot(state), "label": state})
    return rows


def bms_export(n, month):
    """Readings file (ordered by snapshot id) and labels file (same order)."""
    readings, labels = [], []
    for _ in range(n):
        state = int(rng.integers(len(STATES)))
        readings.append({"ts": month * 1e6 + rng.uniform(0, 1e6), "values": snapshot(state)})
        labels.append(state)
    return readings, labels


X_rows, y_rows = [], []
for month in (1, 2):
    for r in legacy_export(800, month):
        X_rows.append(r["values"])
        y_rows.append(r["label"])
for month in (3, 4, 5):
    readings, labels = bms_export(800, month)
    readings.sort(key=lambda r: r["ts"])             # BMS sometimes writes rows out of time order
    X_rows.extend(r["values"] for r in readings)
    y_rows.extend(labels)

audit = legacy_export(1000, 6)
X_va = np.array([r["values"] for r in audit], dtype=np.float32)
y_va = np.array([r["label"] for r in audit])

X_tr = np.array(X_rows, dtype=np.float32)
y_tr = np.array(y_rows)
mu, sd = X_tr.mean(0), X_tr.std(0)
X_tr, X_va = (X_tr - mu) / sd, (X_va - mu) / sd
X_tr, y_tr = torch.from_numpy(X_tr), torch.from_numpy(y_tr)
X_va, y_va = torch.from_numpy(X_va), torch.from_numpy(y_va)
print(f"train snapshots: {len(y_tr)}   audit snapshots: {len(y_va)}")

model = nn.Sequential(
    nn.Linear(len(SIGNALS), 64), nn.ReLU(),
    nn.Linear(64, len(STATES)),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
BATCH, EPOCHS = 64, 20

with open("metrics.csv", "w", newline="") as f:
    out = csv.writer(f)
    out.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(y_tr))
        tot, correct = 0.0, 0
        for i in range(0, len(order), BATCH):
            b = order[i:i + BATCH]
            logits = model(X_tr[b])
            loss = loss_fn(logits, y_tr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(b)
            correct += (logits.argmax(1) == y_tr[b]).sum().item()
        model.eval()
        with torch.no_grad():
            v = model(X_va)
            val_loss = loss_fn(v, y_va).item()
            val_acc = (v.argmax(1) == y_va).float().mean().item()
        tr_loss, tr_acc = tot / len(y_tr), correct / len(y_tr)
        out.writerow([epoch + 1, f"{tr_loss:.4f}", f"{tr_acc:.4f}", f"{val_loss:.4f}", f"{val_acc:.4f}"])
        print(f"epoch {epoch + 1:2d}: train loss {tr_loss:.4f} acc {tr_acc:.3f}   audit loss {val_loss:.4f} acc {val_acc:.3f}")
