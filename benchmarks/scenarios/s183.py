# Binary classifier on strictly positive features (intensities in [0, 1]) with a ReLU MLP
import csv
import torch
import torch.nn as nn

torch.manual_seed(450100)
torch.set_num_threads(1)

N, D = 4000, 40
g = torch.Generator().manual_seed(9)
X = torch.rand(N, D, generator=g)
w_true = torch.randn(D, generator=g)
y = ((X - 0.5) @ w_true + 0.3 * torch.randn(N, generator=g) > 0).float()
Xtr, ytr, Xva, yva = X[:3200], y[:3200], X[3200:], y[3200:]

model = nn.Sequential(nn.Linear(D, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
crit = nn.BCEWithLogitsLoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc"])
    step = 0
    for epoch in range(15):
        perm = torch.randperm(3200)
        for i in range(0, 3200, 32):
            b = perm[i:i + 32]
            loss = crit(model(Xtr[b]).squeeze(1), ytr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            w.writerow([step, epoch, f"{loss.item():.4f}", "", ""])
        with torch.no_grad():
            vo = model(Xva).squeeze(1)
            vl = crit(vo, yva).item()
            va = ((vo > 0).float() == yva).float().mean().item()
        w.writerow([step, epoch, f"{loss.item():.4f}", f"{vl:.4f}", f"{va:.4f}"])
        print(f"epoch {epoch:2d} loss {loss.item():.4f} val_loss {vl:.4f} val_acc {va:.3f}")
