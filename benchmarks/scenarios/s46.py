"""House-price regression trained with float16 autocast to speed up the GPU run."""
import csv
import sys

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

if not torch.cuda.is_available():
    sys.exit("s46.py needs a CUDA GPU: it trains under torch.autocast('cuda', dtype=torch.float16). No GPU found.")

device = torch.device("cuda")
torch.manual_seed(46)
rng = np.random.default_rng(46)

N = 20000
sqft = rng.uniform(500, 4000, N)
rooms = rng.integers(1, 7, N)
age = rng.uniform(0, 80, N)
dist = rng.uniform(0.5, 40, N)
price = 60 * sqft + 15000 * rooms - 900 * age - 2500 * dist + rng.normal(0, 20000, N) + 50000

feats = np.column_stack([sqft, rooms, age, dist])
feats = (feats - feats.mean(0)) / feats.std(0)
X = torch.tensor(feats, dtype=torch.float32)
y = torch.tensor(price, dtype=torch.float32)
loader = DataLoader(TensorDataset(X[:16000], y[:16000]), batch_size=256, shuffle=True)
Xv, yv = X[16000:].to(device), y[16000:].to(device)

model = nn.Sequential(nn.Linear(4, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.MSELoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "loss", "val_loss", "grad_norm"])
    step = 0
    for epoch in range(5):
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                pred = model(xb).squeeze(-1)
                loss = loss_fn(pred, yb)
            loss.backward()
            gn = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
            optimizer.step()
            if step % 10 == 0:
                with torch.no_grad(), torch.autocast("cuda", dtype=torch.float16):
                    vl = loss_fn(model(Xv).squeeze(-1), yv).item()
                w.writerow([step, epoch, f"{loss.item():.6g}", f"{vl:.6g}", f"{gn:.6g}"])
            step += 1
        print(f"epoch {epoch}: loss {loss.item():.4g}  grad_norm {gn:.4g}")
