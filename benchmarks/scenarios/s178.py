# 1-D CNN classifier for synthetic sensor sequences (4 signal types)
import csv
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(121)
torch.set_num_threads(1)

C, PER, L = 4, 600, 64
g = torch.Generator().manual_seed(5)
t = torch.linspace(0, 1, L)
xs, ys = [], []
for c in range(C):
    freq = 3 + 2 * c
    phase = torch.rand(PER, 1, generator=g) * 6.28
    sig = torch.sin(2 * 3.1416 * freq * t + phase) + 0.8 * torch.randn(PER, L, generator=g)
    xs.append(sig.unsqueeze(1))
    ys.append(torch.full((PER,), c))
X, Y = torch.cat(xs), torch.cat(ys)
val_idx = torch.arange(0, len(X), 6)
tr_mask = torch.ones(len(X), dtype=torch.bool)
tr_mask[val_idx] = False
train_ds = TensorDataset(X[tr_mask], Y[tr_mask])
Xva, Yva = X[val_idx], Y[val_idx]
loader = DataLoader(train_ds, batch_size=50, shuffle=False)

model = nn.Sequential(nn.Conv1d(1, 16, 7, padding=3), nn.ReLU(), nn.MaxPool1d(2),
                      nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
                      nn.Flatten(), nn.Linear(32, C))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc"])
    step = 0
    for epoch in range(6):
        for xb, yb in loader:
            loss = crit(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            w.writerow([step, epoch, f"{loss.item():.4f}", "", ""])
        with torch.no_grad():
            vo = model(Xva)
            vl = crit(vo, Yva).item()
            va = (vo.argmax(1) == Yva).float().mean().item()
        w.writerow([step, epoch, f"{loss.item():.4f}", f"{vl:.4f}", f"{va:.4f}"])
        print(f"epoch {epoch} last_batch_loss {loss.item():.4f} val_loss {vl:.4f} val_acc {va:.3f}")
