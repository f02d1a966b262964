# Score-bin classifier: small feature stack + linear head
import csv
import torch
import torch.nn as nn

torch.manual_seed(7)
torch.set_num_threads(1)

N, D, C = 4000, 16, 6
g = torch.Generator().manual_seed(11)
X = torch.randn(N, D, generator=g)
a, b = torch.randn(D, generator=g) / 4, torch.randn(D, generator=g) / 4
score = torch.sin(3 * X @ a) + (X @ b) ** 2 - 0.5 * (X[:, 0] * X[:, 1])
edges = torch.quantile(score, torch.linspace(0, 1, C + 1)[1:-1])
y = torch.bucketize(score, edges)              # 6 balanced classes
Xtr, ytr, Xva, yva = X[:3200], y[:3200], X[3200:], y[3200:]


class Net(nn.Module):
    def __init__(self, width=64):
        super().__init__()
        self.features = [nn.Linear(D, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU()]
        self.head = nn.Linear(width, C)

    def forward(self, x):
        for layer in self.features:
            x = layer(x)
        return self.head(x)


model = Net()
print("optimised tensors:", len(list(model.parameters())))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
    for epoch in range(40):
        perm = torch.randperm(3200)
        tl, tc = 0.0, 0
        for i in range(0, 3200, 64):
            idx = perm[i:i + 64]
            out = model(Xtr[idx])
            loss = crit(out, ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(idx)
            tc += (out.argmax(1) == ytr[idx]).sum().item()
        with torch.no_grad():
            vo = model(Xva)
            vl = crit(vo, yva).item()
            va = (vo.argmax(1) == yva).float().mean().item()
        w.writerow([epoch, f"{tl / 3200:.4f}", f"{tc / 3200:.4f}", f"{vl:.4f}", f"{va:.4f}"])
        print(f"epoch {epoch:2d} train_loss {tl / 3200:.4f} acc {tc / 3200:.3f} val_loss {vl:.4f} val_acc {va:.3f}")
