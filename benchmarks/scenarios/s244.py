# Image categorisation with a small CNN: 10 categories, 40 training images per category
# (80% of the images of each category, the remaining 20% held out for validation), 3x32x32.
# Conv(32)-Conv(64)-Dense(256)-Dense(10), no dropout, no augmentation, Adam lr 1e-3, batch 32,
# 40 epochs.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)

C, PER = 10, 50
g = torch.Generator().manual_seed(3)
templates = F.avg_pool2d(torch.randn(C, 3, 32, 32, generator=g), 5, 1, 2) * 3

def make(labels):
    n = len(labels)
    x = torch.empty(n, 3, 32, 32)
    for k in range(n):
        dx, dy = torch.randint(-8, 9, (2,), generator=g).tolist()
        t = torch.roll(templates[labels[k]], shifts=(dy, dx), dims=(1, 2))
        x[k] = 0.35 * t + torch.randn(3, 32, 32, generator=g)
    return x

labels = torch.arange(C).repeat_interleave(PER)
x = make(labels)
idx_tr, idx_va = [], []
for c in range(C):
    ids = (labels == c).nonzero().flatten()
    ids = ids[torch.randperm(len(ids), generator=g)]
    idx_tr += ids[:40].tolist(); idx_va += ids[40:].tolist()
xtr, ytr, xva, yva = x[idx_tr], labels[idx_tr], x[idx_va], labels[idx_va]
loader = DataLoader(TensorDataset(xtr, ytr), batch_size=32, shuffle=True, generator=torch.Generator().manual_seed(4))

model = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(64 * 8 * 8, 256), nn.ReLU(), nn.Linear(256, C))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["epoch", "loss", "acc", "val_loss", "val_acc"])
    for epoch in range(1, 41):
        model.train()
        tl = tc = 0.0
        for xb, yb in loader:
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(yb); tc += (out.argmax(1) == yb).sum().item()
        model.eval()
        with torch.no_grad():
            vo = model(xva)
            vl = F.cross_entropy(vo, yva).item(); va = (vo.argmax(1) == yva).float().mean().item()
        n = len(ytr)
        print(f"Epoch {epoch}/40 - loss: {tl/n:.4f} - acc: {tc/n:.4f} - val_loss: {vl:.4f} - val_acc: {va:.4f}")
        wr.writerow([epoch, f"{tl/n:.4f}", f"{tc/n:.4f}", f"{vl:.4f}", f"{va:.4f}"])
        fh.flush()
