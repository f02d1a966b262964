# Rhythm classification from Holter-monitor beat series (RR interval + R amplitude per beat).
# The cardiology group exported one file per rhythm label; we load and stack them.
import csv
import io

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(115)
rng = np.random.default_rng(115)

RHYTHMS = ["sinus", "afib", "bradycardia", "tachycardia"]
BEATS = 40


def fake_export(rhythm, n):
    """Stand-in for one exported CSV: each line is rr_1..rr_40,amp_1..amp_40."""
    buf = io.StringIO()
    for _ in range(n):
        if rhythm == "sinus":
            rr = 0.85 + 0.05 * np.sin(np.arange(BEATS) / 3 + rng.uniform(0, 6)) + rng.normal(0, 0.02, BEATS)
        elif rhythm == "afib":
            rr = rng.uniform(0.45, 1.1, BEATS)
        elif rhythm == "bradycardia":
            rr = 1.3 + rng.normal(0, 0.04, BEATS)
        else:
            rr = 0.5 + rng.normal(0, 0.02, BEATS)
        rr = rr * rng.uniform(0.9, 1.1)
        amp = 1.0 + rng.normal(0, 0.1, BEATS)
        buf.write(",".join(f"{v:.4f}" for v in np.concatenate([rr, amp])) + "\n")
    buf.seek(0)
    return buf


def load_rhythm_file(label_idx, n):
    arr = np.loadtxt(fake_export(RHYTHMS[label_idx], n), delimiter=",", dtype=np.float32)
    seq = np.stack([arr[:, :BEATS], arr[:, BEATS:]], axis=2)          # (n, beats, 2)
    return seq, np.full(n, label_idx)


parts = [load_rhythm_file(i, 600) for i in range(len(RHYTHMS))]
X_train = np.concatenate([p[0] for p in parts])
y_train = np.concatenate([p[1] for p in parts])
val_parts = [load_rhythm_file(i, 150) for i in range(len(RHYTHMS))]
X_val = np.concatenate([p[0] for p in val_parts])
y_val = np.concatenate([p[1] for p in val_parts])

mean = X_train.reshape(-1, 2).mean(0)
std = X_train.reshape(-1, 2).std(0)
X_train = (X_train - mean) / std
X_val = (X_val - mean) / std

train_loader = DataLoader(TensorDataset(torch.from_numpy(X_train), torch.from_numpy(y_train)),
                          batch_size=32, shuffle=False)
xv, yv = torch.from_numpy(X_val), torch.from_numpy(y_val)


class RhythmGRU(nn.Module):
    def __init__(self, hidden=32, n_classes=len(RHYTHMS)):
        super().__init__()
        self.gru = nn.GRU(2, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, n_classes)

    def forward(self, x):
        _, h = self.gru(x)
        return self.fc(h[-1])


model = RhythmGRU()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
criterion = nn.CrossEntropyLoss()

LOG_EVERY = 10
csv_file = open("metrics.csv", "w", newline="")
writer = csv.writer(csv_file)
writer.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc"])
step, window = 0, []
for epoch in range(5):
    for xb, yb in train_loader:
        model.train()
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        step += 1
        window.append(loss.item())
        if step % LOG_EVERY == 0:
            model.eval()
            with torch.no_grad():
                logits = model(xv)
                vloss = criterion(logits, yv).item()
                vacc = (logits.argmax(1) == yv).float().mean().item()
            tl = sum(window) / len(window)
            window = []
            writer.writerow([step, epoch, round(tl, 4), round(vloss, 4), round(vacc, 4)])
            print(f"step {step:4d} (epoch {epoch})  train_loss {tl:.4f}  val_loss {vloss:.4f}  val_acc {vacc:.3f}")
csv_file.close()
