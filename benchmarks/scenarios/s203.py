# Remaining-useful-life regression on C-MAPSS-like turbofan sensor windows (1-D CNN + dropout), MSE on RUL capped at 125
import csv
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)
torch.set_num_threads(1)

WIN, NS = 30, 14
rng = np.random.default_rng(1)
base_drift = rng.normal(0, 1, NS)
Xs, ys, us = [], [], []
for unit in range(140):
    life = rng.integers(150, 300)
    drift = base_drift + 0.2 * rng.normal(0, 1, NS)
    for t in range(WIN, life, 3):
        h = np.arange(t - WIN, t) / life
        win = np.outer(np.exp(3 * h) - 1, drift) * 0.3 + rng.normal(0, 0.35, (WIN, NS))
        Xs.append(win)
        ys.append(min(125, life - t))
        us.append(unit)
X = torch.tensor(np.array(Xs), dtype=torch.float32).permute(0, 2, 1)
y = torch.tensor(ys, dtype=torch.float32).unsqueeze(1) / 125.0
is_val = torch.tensor(us) >= 112          # last 28 engines held out
train_ds = torch.utils.data.TensorDataset(X[~is_val], y[~is_val])
val_ds = torch.utils.data.TensorDataset(X[is_val], y[is_val])
train_dataloader = torch.utils.data.DataLoader(train_ds, batch_size=64, shuffle=True)
val_dataloader = torch.utils.data.DataLoader(val_ds, batch_size=256)
device = "cpu"

model = nn.Sequential(nn.Conv1d(NS, 32, 5, padding=2), nn.ReLU(), nn.Dropout(0.3),
                      nn.Conv1d(32, 32, 5, padding=2), nn.ReLU(), nn.Dropout(0.3),
                      nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(32, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.MSELoss()


def train_one_epoch(model, train_dataloader, optimizer, criterion):
    batches_loss = []
    for i, j in enumerate(train_dataloader):
        X_, true_rul = j[0].to(device), j[1].to(device)
        optimizer.zero_grad()
        pred_rul = model(X_)
        loss = criterion(pred_rul, true_rul)
        loss.backward()
        optimizer.step()
        batches_loss.append(loss.item())
    return np.mean(batches_loss), model, batches_loss


with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "train_loss", "val_loss"])
    step = 0
    for epoch in range(7):
        model.train(True)
        avg_train_loss, model, bl = train_one_epoch(model, train_dataloader, optimizer, criterion)
        for l in bl:
            step += 1
            w.writerow([step, epoch, f"{l:.5f}", "", ""])
        model.eval()
        with torch.no_grad():
            val_loss = [criterion(model(a.to(device)), b.to(device)).item() for a, b in val_dataloader]
            avg_val_loss = np.mean(val_loss)
        w.writerow([step, epoch, f"{bl[-1]:.5f}", f"{avg_train_loss:.5f}", f"{avg_val_loss:.5f}"])
        print(f"--------Epoch {epoch}--------")
        print(f"Train Loss: {avg_train_loss:.5f}  Validation Loss: {avg_val_loss:.5f}")
