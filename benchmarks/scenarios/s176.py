# Keras-style custom train_step ported to PyTorch (SGD, dense classifier)
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(293)
torch.set_num_threads(1)

N, D, C = 6000, 64, 10
g = torch.Generator().manual_seed(3)
W_true = torch.randn(D, C, generator=g)
X = torch.randn(N, D, generator=g)
y = (X @ W_true + 0.5 * torch.randn(N, C, generator=g)).argmax(1)
Xtr, ytr, Xva, yva = X[:5000], y[:5000], X[5000:], y[5000:]


class CustomModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.dense1 = nn.Linear(D, 256)
        self.dense2 = nn.Linear(256, C)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.01)

    def forward(self, x):
        return self.dense2(F.relu(self.dense1(x)))

    def train_step(self, x, t):
        logits = self(x)
        loss = F.cross_entropy(logits, t)
        loss.backward()
        self.optimizer.step()
        acc = (logits.argmax(1) == t).float().mean()
        return loss.item(), acc.item()


model = CustomModel()
BS = 128
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "accuracy", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(14):
        perm = torch.randperm(5000)
        for i in range(0, 5000 - BS + 1, BS):
            b = perm[i:i + BS]
            loss, acc = model.train_step(Xtr[b], ytr[b])
            step += 1
            w.writerow([step, epoch, f"{loss:.4f}", f"{acc:.4f}", "", ""])
        with torch.no_grad():
            vl = model(Xva)
            val_loss = F.cross_entropy(vl, yva).item()
            val_acc = (vl.argmax(1) == yva).float().mean().item()
        w.writerow([step, epoch, f"{loss:.4f}", f"{acc:.4f}", f"{val_loss:.4f}", f"{val_acc:.4f}"])
        print(f"Epoch {epoch + 1}/14 - loss: {loss:.4f} - accuracy: {acc:.4f} - val_loss: {val_loss:.4f} - val_accuracy: {val_acc:.4f}")
