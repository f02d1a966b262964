# Hyperspectral pixel classifier (1-D spectral CNN with BatchNorm + Dropout)
import csv
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(51)
torch.set_num_threads(1)

BANDS, C = 100, 9
g = torch.Generator().manual_seed(8)
w = torch.linspace(0, 1, BANDS)
centres = torch.rand(C, 3, generator=g)
signatures = torch.stack([sum(torch.exp(-((w - m) / 0.08) ** 2) for m in cen) for cen in centres])   # material spectra


def pixels(n_per_class):
    xs, ys = [], []
    for c in range(C):
        gain = 0.6 + 0.8 * torch.rand(n_per_class, 1, generator=g)          # illumination
        xs.append(gain * signatures[c] + 0.25 * torch.randn(n_per_class, BANDS, generator=g))
        ys.append(torch.full((n_per_class,), c))
    return torch.cat(xs).unsqueeze(1), torch.cat(ys)


Xtr, ytr = pixels(160)
Xva, yva = pixels(60)
train_loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=32, shuffle=True)
val_loader = DataLoader(TensorDataset(Xva, yva), batch_size=20, shuffle=False)

model = nn.Sequential(
    nn.Conv1d(1, 16, 7, padding=3), nn.BatchNorm1d(16), nn.ReLU(), nn.MaxPool1d(2),
    nn.Conv1d(16, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(2),
    nn.Flatten(), nn.Dropout(0.5), nn.Linear(32 * 25, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, C))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()


def val(net, loader):
    tot, correct, loss = 0, 0, 0.0
    with torch.no_grad():
        for xb, yb in loader:
            out = net(xb)
            loss += crit(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            tot += len(yb)
    return loss / tot, correct / tot


with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
    for epoch in range(25):
        model.train()
        tl, tc, n = 0.0, 0, 0
        for xb, yb in train_loader:
            out = model(xb)
            loss = crit(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(yb)
            tc += (out.argmax(1) == yb).sum().item()
            n += len(yb)
        vl, va = val(model, val_loader)
        wr.writerow([epoch, f"{tl / n:.4f}", f"{tc / n:.4f}", f"{vl:.4f}", f"{va:.4f}"])
        print(f"epoch {epoch:2d} train_loss {tl / n:.4f} train_acc {tc / n:.3f} val_loss {vl:.4f} val_acc {va:.3f}")
