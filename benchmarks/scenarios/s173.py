# Experiment: CNN on 28x28 digit-like images trained with 50% noisy labels (half the training labels replaced at random).
# Validation set has the true labels.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(8)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(8)
protos = (torch.rand(10, 1, 28, 28, generator=g) > 0.75).float()
protos = F.avg_pool2d(protos, 3, 1, 1)


def make(n):
    y = torch.randint(0, 10, (n,), generator=g)
    x = protos[y] + 0.35 * torch.randn(n, 1, 28, 28, generator=g)
    return x, y


x_train, y_clean = make(6000)
noisy = torch.rand(6000, generator=g) < 0.5
y_train = y_clean.clone()
y_train[noisy] = torch.randint(0, 10, (int(noisy.sum()),), generator=g)
x_val, y_val = make(1000)

train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=128, shuffle=True)
model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                      nn.Linear(32 * 7 * 7, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
    step = 0
    for epoch in range(6):
        model.train()
        for xb, yb in train_loader:
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 10 == 0:
                model.eval()
                with torch.no_grad():
                    vo = model(x_val)
                    vl = F.cross_entropy(vo, y_val).item()
                    va = (vo.argmax(1) == y_val).float().mean().item()
                model.train()
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{(out.argmax(1) == yb).float().mean().item():.4f}",
                            f"{vl:.5f}", f"{va:.4f}"])
        print(f"epoch {epoch + 1}: loss={loss.item():.4f} acc={(out.argmax(1) == yb).float().mean().item():.3f} "
              f"val_loss={vl:.4f} val_acc={va:.4f}")
