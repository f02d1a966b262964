# TESLA-style air-quality forecaster trained on a self-built "first_col" SensEURCity table
# (sensor columns: NO2, O3, temperature, humidity, pressure; some sensors drop out for hours)
import csv
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)
torch.set_num_threads(1)

T, F = 6000, 5
t = np.arange(T)
no2 = 30 + 12 * np.sin(2 * np.pi * t / 24) + 4 * np.random.randn(T)
o3 = 50 - 10 * np.sin(2 * np.pi * t / 24 + 0.5) + 5 * np.random.randn(T)
temp = 15 + 6 * np.sin(2 * np.pi * t / 24 - 1.0) + np.random.randn(T)
hum = 60 + 10 * np.cos(2 * np.pi * t / 24) + 3 * np.random.randn(T)
pres = 1013 + 2 * np.random.randn(T).cumsum() / 30
data = np.stack([no2, o3, temp, hum, pres], 1).astype(np.float32)
for _ in range(25):
    s = np.random.randint(0, T - 12)
    c = np.random.randint(0, F)
    data[s:s + np.random.randint(1, 12), c] = np.nan

mean = np.nanmean(data, 0)
std = np.nanstd(data, 0)
data = (data - mean) / std

L, H = 48, 12
def windows(arr):
    xs, ys = [], []
    for i in range(0, len(arr) - L - H, 3):
        xs.append(arr[i:i + L])
        ys.append(arr[i + L:i + L + H, 0])
    return torch.tensor(np.array(xs)), torch.tensor(np.array(ys))

split = int(0.8 * T)
Xtr, Ytr = windows(data[:split])
Xva, Yva = windows(data[split:])

class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(F, 64, batch_first=True)
        self.head = nn.Linear(64, H)
    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])

model = Forecaster()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.MSELoss()
bs = 64
step = 0
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "val_loss"])
    for epoch in range(8):
        perm = torch.randperm(len(Xtr))
        model.train()
        tot, n = 0.0, 0
        for i in range(0, len(Xtr), bs):
            idx = perm[i:i + bs]
            pred = model(Xtr[idx])
            loss = crit(pred, Ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            tot += loss.item() * len(idx); n += len(idx)
            w.writerow([step, epoch, f"{loss.item():.5f}", ""])
        model.eval()
        with torch.no_grad():
            vl = crit(model(Xva), Yva).item()
        w.writerow([step, epoch, f"{tot / n:.5f}", f"{vl:.5f}"])
        fh.flush()
        print(f"Epoch: {epoch + 1}, Train Loss: {tot / n:.7f}, Vali Loss: {vl:.7f}")
