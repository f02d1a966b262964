# SciCo-style hierarchical cross-document relation classifier (4 classes: not related / coref / parent / child)
import csv
import torch
import torch.nn as nn

torch.manual_seed(2)
torch.set_num_threads(1)

N, D, C = 6000, 48, 4
g = torch.Generator().manual_seed(11)
proto = torch.randn(C, D, generator=g) * 0.3
y = torch.randint(0, C, (N,), generator=g)
X = proto[y] + torch.randn(N, D, generator=g)
Xtr, ytr, Xdev, ydev = X[:5000], y[:5000], X[5000:], y[5000:]


class MulticlassModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, C))
        self.criterion = nn.CrossEntropyLoss()

    def forward(self, x):
        return self.mlp(x)

    def training_step(self, x, t):
        return self.criterion(self(x), t)

    def validation_step(self, x, t):
        y_hat = torch.softmax(self(x), dim=1)
        loss = self.criterion(y_hat, t)
        return loss, y_hat


model = MulticlassModel()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc"])
    step = 0
    for epoch in range(12):
        model.train()
        perm = torch.randperm(5000)
        for i in range(0, 5000, 50):
            b = perm[i:i + 50]
            loss = model.training_step(Xtr[b], ytr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 20 == 0:
                w.writerow([step, epoch, f"{loss.item():.4f}", "", ""])
        model.eval()
        with torch.no_grad():
            vl, probs = model.validation_step(Xdev, ydev)
            acc = (probs.argmax(1) == ydev).float().mean().item()
        w.writerow([step, epoch, f"{loss.item():.4f}", f"{vl.item():.4f}", f"{acc:.4f}"])
        print(f"Epoch {epoch}: train_loss={loss.item():.4f} val_loss={vl.item():.4f} val_accuracy={acc:.4f}")
