# MLP regression where the target carries unit-variance measurement noise: y = f(x) + N(0, 1)
import csv
import torch
import torch.nn as nn

torch.manual_seed(361079)
torch.set_num_threads(1)

N, D = 6000, 5
g = torch.Generator().manual_seed(6)
X = torch.rand(N, D, generator=g) * 4 - 2
f = 2 * torch.sin(X[:, 0]) + X[:, 1] * X[:, 2] - 0.5 * X[:, 3] ** 2 + X[:, 4]
y = (f + torch.randn(N, generator=g)).unsqueeze(1)
Xtr, ytr, Xva, yva = X[:5000], y[:5000], X[5000:], y[5000:]

model = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.MSELoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "train_loss", "val_loss"])
    for epoch in range(60):
        perm = torch.randperm(5000)
        tot = 0.0
        for i in range(0, 5000, 100):
            b = perm[i:i + 100]
            loss = crit(model(Xtr[b]), ytr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
        with torch.no_grad():
            vl = crit(model(Xva), yva).item()
        w.writerow([epoch, f"{tot / 50:.4f}", f"{vl:.4f}"])
        print(f"epoch {epoch:2d} train_mse {tot / 50:.4f} val_mse {vl:.4f}")
