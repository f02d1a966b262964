# Own model (one-hidden-layer MLP) on a 10-class feature set, SGD momentum 0.9, lr 0.1, weight decay 1e-4;
# top-1 error logged per epoch
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(4)
C, D = 10, 48
means = 0.42 * torch.randn(C, D, generator=g)
def make(n):
    y = torch.randint(0, C, (n,), generator=g)
    x = means[y] + torch.randn(n, D, generator=g) * 1.0
    return x, y
Xtr, ytr = make(20000)
Xte, yte = make(5000)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, C))
    def forward(self, x):
        return self.f(x)

model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
bs = 128
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "lr", "train_loss", "train_err", "test_loss", "test_err"])
    for epoch in range(20):
        model.train()
        Xtr, ytr = make(20000)          # fresh augmented samples every epoch
        p = torch.randperm(len(ytr))
        tl, te, n = 0.0, 0, 0
        for i in range(0, len(p), bs):
            idx = p[i:i + bs]
            out = model(Xtr[idx])
            loss = F.cross_entropy(out, ytr[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            tl += loss.item() * len(idx); te += (out.argmax(1) != ytr[idx]).sum().item(); n += len(idx)
        model.eval()
        with torch.no_grad():
            out = model(Xte)
            vl = F.cross_entropy(out, yte).item()
            ve = (out.argmax(1) != yte).float().mean().item()
        lr = optimizer.param_groups[0]["lr"]
        w.writerow([epoch, lr, f"{tl / n:.4f}", f"{100 * te / n:.2f}", f"{vl:.4f}", f"{100 * ve:.2f}"])
        fh.flush()
        print(f"Epoch [{epoch}] lr {lr} train loss {tl / n:.4f} train err {100 * te / n:.2f}% test loss {vl:.4f} test err {100 * ve:.2f}%")
