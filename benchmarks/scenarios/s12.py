"""3-fold cross-validation of an MLP on a synthetic 4-class problem."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Subset, TensorDataset

K_FOLDS = 3
EPOCHS_PER_FOLD = 4
LR = 3e-3

torch.manual_seed(12)
rng = np.random.default_rng(12)

# 4 classes defined by the quadrant of two latent factors, observed through 12 noisy features
latent = rng.normal(size=(1800, 2))
mixing = rng.normal(size=(2, 12))
X = latent @ mixing + 0.3 * rng.normal(size=(1800, 12))
y = (latent[:, 0] > 0).astype(int) * 2 + (latent[:, 1] > 0).astype(int)
dataset = TensorDataset(torch.tensor(X, dtype=torch.float32), torch.tensor(y))


class Net(nn.Module):
    def __init__(self, d_in=12, hidden=64, n_out=4):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, n_out)
        self.act = nn.GELU()

    def forward(self, x):
        return self.out(self.act(self.fc2(self.act(self.fc1(x)))))


model = Net()
optimizer = torch.optim.RMSprop(model.parameters(), lr=LR)
criterion = nn.CrossEntropyLoss()

folds = np.array_split(rng.permutation(len(dataset)), K_FOLDS)
rows, global_epoch, step = [], 0, 0
for k in range(K_FOLDS):
    val_idx = folds[k]
    train_idx = np.concatenate([folds[j] for j in range(K_FOLDS) if j != k])
    train_loader = DataLoader(Subset(dataset, train_idx), batch_size=32, shuffle=True)
    val_loader = DataLoader(Subset(dataset, val_idx), batch_size=256)

    model = Net()  # fresh weights for every fold
    for epoch in range(EPOCHS_PER_FOLD):
        model.train()
        losses = []
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            step += 1
        model.eval()
        correct = total = 0
        vlosses = []
        with torch.no_grad():
            for xb, yb in val_loader:
                out = model(xb)
                vlosses.append(criterion(out, yb).item())
                correct += (out.argmax(1) == yb).sum().item()
                total += len(yb)
        rows.append([step, global_epoch, np.mean(losses), np.mean(vlosses), correct / total])
        print(f"fold {k} epoch {epoch}: train_loss={np.mean(losses):.4f} val_loss={np.mean(vlosses):.4f} val_acc={correct / total:.3f}")
        global_epoch += 1

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "train_loss", "val_loss", "val_accuracy"])
    for r in rows:
        w.writerow([r[0], r[1], f"{r[2]:.5f}", f"{r[3]:.5f}", f"{r[4]:.4f}"])
print("mean CV accuracy:", np.mean([r[4] for r in rows[EPOCHS_PER_FOLD - 1::EPOCHS_PER_FOLD]]))
