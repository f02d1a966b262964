"""Small labelled set (240 samples, 4 classes in 30-d) with jitter augmentation."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(45)
rng = np.random.default_rng(45)

N_ORIG, D, N_CLASSES, COPIES = 240, 30, 4, 5

# the labelled data: 4 overlapping classes in 30-d (only a few informative directions)
centers = np.zeros((N_CLASSES, D))
centers[:, :4] = rng.normal(0, 1.0, size=(N_CLASSES, 4))
y_orig = rng.integers(0, N_CLASSES, N_ORIG)
x_orig = centers[y_orig] + rng.normal(0, 1.0, size=(N_ORIG, D))

# augmentation: each sample gets a few jittered copies
x_aug = np.concatenate([x_orig + rng.normal(0, 0.05, size=x_orig.shape) for _ in range(COPIES)])
y_aug = np.tile(y_orig, COPIES)
dataset = TensorDataset(torch.tensor(x_aug, dtype=torch.float32), torch.tensor(y_aug))

n_val = len(dataset) // 5
train_set, val_set = random_split(dataset, [len(dataset) - n_val, n_val], generator=torch.Generator().manual_seed(0))
train_loader = DataLoader(train_set, batch_size=32, shuffle=True)
val_loader = DataLoader(val_set, batch_size=256)

model = nn.Sequential(nn.Linear(D, 256), nn.ReLU(), nn.Dropout(0.3), nn.Linear(256, 256), nn.ReLU(),
                      nn.Dropout(0.3), nn.Linear(256, N_CLASSES))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["epoch", "train_loss", "val_loss", "accuracy", "val_accuracy"])
    for epoch in range(15):
        model.train()
        tot, hit, n = 0.0, 0, 0
        for xb, yb in train_loader:
            optimizer.zero_grad()
            out = model(xb)
            loss = criterion(out, yb)
            loss.backward()
            optimizer.step()
            tot += loss.item() * len(yb)
            hit += (out.argmax(1) == yb).sum().item()
            n += len(yb)
        model.eval()
        vtot, vhit, vn = 0.0, 0, 0
        with torch.no_grad():
            for xb, yb in val_loader:
                out = model(xb)
                vtot += criterion(out, yb).item() * len(yb)
                vhit += (out.argmax(1) == yb).sum().item()
                vn += len(yb)
        w.writerow([epoch, f"{tot / n:.5f}", f"{vtot / vn:.5f}", f"{hit / n:.4f}", f"{vhit / vn:.4f}"])
        print(f"epoch {epoch:2d}  train {tot / n:.4f} ({hit / n:.3f})  val {vtot / vn:.4f} ({vhit / vn:.3f})")
